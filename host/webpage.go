package host

import "net/http"

// registerWebPage adds the browser client's page to mux. It serves
// nothing yet: the page comes with the browser build.
func registerWebPage(mux *http.ServeMux, cfg ServeConfig) error { return nil }
