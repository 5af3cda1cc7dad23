// Package adminclient is a Go client of the PACT Board Admin API, generated
// by oapi-codegen from docs/openapi.json (never edit client_gen.go: run
// `make client`). Authenticate with a person's OAuth access token, e.g.
//
//	c, err := adminclient.NewClientWithResponses(boardURL, // paths include /admin/api
//		adminclient.WithRequestEditorFn(func(ctx context.Context, r *http.Request) error {
//			r.Header.Set("Authorization", "Bearer "+token)
//			return nil
//		}))
package adminclient
