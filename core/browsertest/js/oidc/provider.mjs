// An OpenID provider nobody here wrote (oidc-provider from npm) for Go
// tests (core/browsertest): reads its configuration as JSON from the file
// in argv[2], listens on a free loopback port and prints one JSON line,
// {"issuer"}, when ready. It runs until stdin closes (the Go side's end).
//
// Configuration: {client: {id, secret, redirectUris}, audience,
// users: [{email, password, amr}], registration, resourceScope}. The client
// may use the authorization code flow (PKCE required, as oidc-provider
// requires it) and refresh tokens; an empty secret makes it a public client
// (a browser app). Access tokens are RS256 JWTs for audience (resource
// indicators, the default resource when the client names none) carrying
// the user's email, email_verified and amr. Sign-in is a plain form (labels
// "Email" and "Password", button "Sign in") that accepts only the
// configured users; consent is given at once, to what was asked.
//
// For an MCP client's sign-in: registration (true) opens dynamic client
// registration (RFC 7591) to anyone, and the client may be left out;
// resourceScope (e.g. "pact") makes every other resource indicator
// (RFC 8707) a resource server offering that scope, whose access tokens are
// RS256 JWTs with the resource as aud. Without them, any resource a client
// names gets tokens for audience, as before.
import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const users = new Map(config.users.map((u) => [u.email, u]));
const scope = 'openid email offline_access';
const resourceScope = config.resourceScope || '';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'rs1', alg: 'RS256', use: 'sig' };

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const clients = config.client ? [{
  client_id: config.client.id,
  redirect_uris: config.client.redirectUris,
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  ...(config.client.secret
    ? { client_secret: config.client.secret, token_endpoint_auth_method: 'client_secret_basic' }
    : { token_endpoint_auth_method: 'none' }),
}] : [];

const jwtAccessToken = { accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'RS256' } } };

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [jwk] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  // A scope clients may register with must be one the provider lists.
  scopes: ['openid', 'email', 'offline_access', ...(resourceScope ? [resourceScope] : [])],
  async findAccount(_ctx, id) {
    const user = users.get(id);
    if (!user) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, email: id, email_verified: true }) };
  },
  // The email is the account id; the board reads these from the access token.
  async extraTokenClaims(_ctx, token) {
    const user = users.get(token.accountId);
    if (!user) return undefined;
    return { email: user.email, email_verified: true, amr: user.amr };
  },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: !!config.registration },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => config.audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => (resourceScope && resource !== config.audience
        ? { scope: resourceScope, audience: resource, ...jwtAccessToken }
        : { scope, audience: config.audience, ...jwtAccessToken }),
    },
  },
  issueRefreshToken: async (_ctx, c) => c.grantTypeAllowed('refresh_token'),
  clientBasedCORS: () => true,
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});

function page(res, status, body) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head><body><main>${body}</main></body></html>`);
}

function loginForm(uid, error) {
  return `<h1>Sign in</h1>${error ? `<p role="alert">${error}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="username">
<label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit">Sign in</button>
</form>`;
}

async function readForm(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params, session } = details;
  if (req.method === 'POST' && req.url.endsWith('/login')) {
    const form = await readForm(req);
    const user = users.get(form.get('email'));
    if (!user || user.password !== form.get('password')) {
      return page(res, 200, loginForm(uid, 'Wrong email or password.'));
    }
    return provider.interactionFinished(req, res, { login: { accountId: user.email, amr: user.amr } }, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'login') return page(res, 200, loginForm(uid));
  // Consent: grant what was asked, for the client and the audience, and
  // for any other resource the client named.
  const grant = details.grantId ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  grant.addOIDCScope(scope);
  grant.addResourceScope(config.audience, scope);
  const { missingOIDCScope, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      process.stderr.write(`interaction: ${err.stack || err}\n`);
      if (!res.headersSent) page(res, 500, `<p>${String(err.message)}</p>`);
    });
    return;
  }
  callback(req, res);
});

process.stdout.write(JSON.stringify({ issuer }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
