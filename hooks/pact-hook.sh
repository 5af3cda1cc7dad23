#!/bin/sh
# pact-hook.sh <agent> <event>: a Claude Code hook for PACT Board (docs/hooks.md).
#
# It posts the hook's JSON (stdin) to <PACT_URL>/hooks/a/<agent>/<event> with
# the agent's token and prints the board's answer for Claude Code. It reads
# PACT_URL, PACT_TOKEN, PACT_AUTO_CLAIM and PACT_AUTO_CLAIM_FROM from
# ${PACT_HOOK_DIR:-$HOME/.config/pact}/<agent>.env (KEY=value lines, as
# pact-connect writes them). Unconfigured, or with the board unreachable, it
# prints nothing and exits 0: a hook never stops a session. It needs sh and
# curl (7.55 or newer), and git for auto-claim's clean-tree rule.

agent=$1
event=$2
[ -n "$agent" ] && [ -n "$event" ] || exit 0
env_file="${PACT_HOOK_DIR:-$HOME/.config/pact}/$agent.env"
[ -r "$env_file" ] || exit 0

# setting KEY: the last KEY=value line of the env file, unquoted.
setting() {
	sed -n "s/^[[:space:]]*$1=//p" "$env_file" | tail -n 1 |
		sed -e 's/^"\(.*\)"[[:space:]]*$/\1/' -e "s/^'\(.*\)'[[:space:]]*\$/\1/"
}
url=$(setting PACT_URL)
token=$(setting PACT_TOKEN)
[ -n "$url" ] && [ -n "$token" ] || exit 0

# clean: 1 when the working tree is clean. Inside a work tree: nothing to
# commit. A folder that is no repository counts as clean only when it holds
# at least one child repository and every one is clean.
clean() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		[ -z "$(git status --porcelain 2>/dev/null)" ] && echo 1 || echo 0
		return
	fi
	found=0
	for d in */; do
		[ -e "$d.git" ] || continue
		found=1
		[ -z "$(git -C "$d" status --porcelain 2>/dev/null)" ] || { echo 0; return; }
	done
	echo "$found"
}
git_clean=0
[ "$event" = user-prompt-submit ] && git_clean=$(clean)

# The token travels in a header read from a here-document, never on the
# command line, where other users of the machine could read it (ps).
answer=$(curl -sS -m 5 -X POST -H @/dev/fd/3 --data-binary @- -w '\n%{http_code}' \
	"${url%/}/hooks/a/$agent/$event" 2>/dev/null 3<<HEADERS
Authorization: Bearer $token
Content-Type: application/json
X-Pact-Auto-Claim: $(setting PACT_AUTO_CLAIM)
X-Pact-Auto-Claim-From: $(setting PACT_AUTO_CLAIM_FROM)
X-Pact-Git-Clean: $git_clean
HEADERS
) || exit 0
status=$(printf '%s\n' "$answer" | tail -n 1)
body=$(printf '%s\n' "$answer" | sed '$d')

if [ "$status" != 200 ]; then
	# A refused hook (a revoked token, a wrong URL) says so once per event,
	# except after each tool use, where it would repeat endlessly.
	[ "$event" = post-tool-use ] && exit 0
	printf '{"systemMessage": "PACT: the board refused this hook (HTTP %s); check PACT_URL and PACT_TOKEN in %s.env"}\n' \
		"$status" "$agent"
	exit 0
fi
case $event in
post-tool-use)
	case $body in *hookSpecificOutput*) printf '%s\n' "$body" ;; esac
	;;
*)
	printf '%s\n' "$body"
	;;
esac
exit 0
