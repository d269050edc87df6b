// Package browser is the host's side of the browser: what a client shows
// in a web page, and how browsers reach a server.
//
//   - A Viewer ties a client's game to its page: the drawn picture every
//     frame, the scene and its looks, the scoreboard, the network panel,
//     the page's input as commands and its link sliders on the simulator.
//     StartViewer serves a page of its own (client --view); NewPageViewer
//     draws in the page the browser client runs in.
//   - Listen starts a server's web listener (vkmd --web) beside its UDP
//     socket: a gateway of WebRTC data channels and WebSocket (package
//     web), the browser client's page, its WebAssembly build and the
//     project's files; the serving loop reads the two as one socket, and
//     the gateway's counts are among the server's figures. Dial is a
//     native client's link through a web listener (client --web).
//   - In the browser client itself (js/wasm), a PageSocket is the page's
//     link to the server as a socket, and Perf keeps the times its
//     figures panel shows.
//
// The sockets are package netio's; the page's messages are package view's.
// Nothing here is safe for concurrent use unless it says so: each piece
// belongs to the loop that made it.
//
// A js/wasm build (the browser client) has what runs in the tab and no
// server: Listen, Dial and StartViewer fail there (web_js.go), and the
// page's HTTP server is not built, so the client links no net/http
// (internal/layers' TestTheBrowserClientLinksNoServer keeps it so).
package browser
