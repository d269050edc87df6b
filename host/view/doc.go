// Package view is the reference client's web face (DESIGN.md, "The
// programs": client --view). It serves one page, streams what the client
// draws each frame to it over a WebSocket, and brings the page's keyboard
// and mouse back as the project's input actions.
//
// The client's frame loop calls Publish every frame; Publish never waits
// for a browser. Each connection keeps only the newest frame not yet
// written: a frame replaced before it was written is dropped and counted,
// so a slow or stalled page costs one frame of memory and never slows the
// loop. The loop reads the page's input with TakeInput once a tick.
//
// A client that runs in the page itself (the browser client, compiled to
// WebAssembly) has no WebSocket to the page: a Sink hands it the same
// messages as function calls and takes the page's messages back with the
// same validation. InTabPage is the page that loads such a client.
//
// Only the page's own origin may open the WebSocket, requests must name the
// server by an IP address, localhost or the configured host name (against
// DNS rebinding), messages from the page are size-limited and validated, and
// at most MaxConns pages are connected at once.
//
// # Messages
//
// Every message is one JSON object in a text message, its kind in "t". An
// entity id is one integer, generation<<24 | slot (entity.ID.Pack); a pose
// is [x, y, angle, scale] in metres and radians, y up, or [id, x, y, angle,
// scale] with the id first. Numbers are rounded to 0.0001; a number that is
// not finite is null.
//
// To the page, in this order on a new connection (scene, board and
// corrections only once one is set), then scene, link, board and
// corrections again when they change and a frame each frame:
//
//	{"t":"hello","axes":[{"name":"run","negative":["KeyA"],"positive":["KeyD"],"mouse":""}, ...],
//	 "buttons":[{"name":"fire","keys":["KeyF"],"mouse":"left"}, ...],"view_width":32,"title":"Coin Yard",
//	 "camera":{"mode":"fit","box":[-12.5,-8.5,12.5,8.5]},
//	 "sounds":[{"event":"pickup","file":"sounds/pickup.wav","volume":1,"range":40}]}
//	{"t":"scene","bodies":[{"id":16777217,"name":"crate","kind":"dynamic","color":"",
//	 "style":"outline","label":"ann","order":1,"role":"player",
//	 "shapes":[{"k":"box","x":0,"y":0,"hx":0.5,"hy":0.5,"a":0,"sensor":false},
//	           {"k":"circle","x":0,"y":0,"r":0.4,"sensor":true},
//	           {"k":"polygon","x":0,"y":0,"p":[[x,y], ...],"loop":false,"sensor":false},
//	           {"k":"chain","x":0,"y":0,"p":[[x,y], ...],"loop":true,"sensor":false}],
//	 "sprite":{"image":"art/coin.png","w":0.8,"h":0.8,"x":0,"y":0,"a":0,"cols":4,"rows":1,
//	           "frame":0,"anims":{"spin":[0,1,2,3]},"anim":"spin","fps":8}}, ...]}
//	{"t":"link","enabled":true,"latency_ms":80,"jitter_ms":10,"loss_pct":2}
//	{"t":"board","cols":["Score.kills","Score.deaths"],
//	 "rows":[{"name":"ann","own":true,"rtt_ms":40,"v":[3,1]}, ...],"state":[["Round.left",93]]}
//	{"t":"corrections","list":[[476,"9#1","pose",12.5,"shove",true],
//	 [480,"9#1","Health.hp",40,"component",false], ...]}
//	{"t":"frame","seq":812,"tick":4711,"own":16777236,"e":[[id,x,y,a,s], ...],
//	 "dev":[["Health.hp",100],["Score.kills",2]],
//	 "net":{"rtt_ms":40,"loss_permille":5,"bytes_in_per_s":12000,"bytes_out_per_s":3000,
//	        "snapshots_per_s":64,"corrections_per_s":0,"pacing_low_water":2,"pacing_target":2.5,
//	        "tick_speed":1.01,"interp_delay_ticks":2,"interp_stalls":0},
//	 "ghost":[x,y,a,s],"leased":[id, ...],"samples":[[id,x,y,a,s], ...],
//	 "fx":[[7,"shot",16777236,{"x1":0,"y1":1.2,"x2":9.5,"y2":1.2,"by":20}], ...],
//	 "hud":[{"at":"top","k":"text","text":"round 2"},
//	        {"at":"bottom-left","k":"bar","text":"health","v":75,"max":100},
//	        {"at":"top-right","k":"list","text":"runners","lines":["ann 3","bo 1"]}],
//	 "looks":[[16777217,"#48f","ann 3",true], ...],
//	 "errors":["scripting: walker.on_update on \"hero\" (slot 3): scripts/walker.lua:12: ..."],"errs":1,
//	 "notice":"reload refused, the old code keeps running: scripting: scripts/walker.lua:2: ...",
//	 "joints":[["revolute",0,1.5,0,1.5],["rope",2,3,4.5,0.2]]}
//
// view_width, title, camera, sounds, style, sprite, label, order and role are left out when empty or 0:
// the page then uses its defaults (32 m; a filled shape, no label, order 0,
// no player's). role is "own" or "player" for a player's entity.
//
// dev is the developer panel's list (the own entity's component fields);
// hud is the game's HUD, the project's [[hud]] items filled in, absent when
// the project has none; looks (each [id, colour, label, visible]: the
// look of an entity whose look follows its components, replacing the
// scene's colour when not "" and its label, hiding it when not visible)
// is absent when no look changes; errors (the newest three of this end's script
// errors) and errs (how many in all) are absent when there are none, and a
// developer's page shows them; so is notice, what a dev server told this
// client (a reload it refused), absent when there is none or a reload has
// taken effect since. joints (each [kind, ax, ay, bx, by]: a joint of the
// drawn bodies, from one anchor to the other in the world) is absent when
// there are none. seq counts Publish calls, so a gap is frames dropped for that page; net
// is absent offline, ghost when there is none and fx when no effect is
// recent. An effect is [seq, name, emitting entity, fields]: effects are
// numbered from 1 and a frame repeats those of the last moment, so the page
// shows each seq once even when it was handed only the newest frame. A shape's x and y are its
// offset in the body's frame; a box turns by a about it; polygon and chain
// points are moved by the offset.
//
// From the page, at most 4 KiB each (a larger message closes the connection):
//
//	{"t":"input","axes":{"run":-1,"aim_x":0.6,"aim_y":0.8},"held":{"jump":true,"fire":false}}
//	{"t":"link","latency_ms":80,"jitter_ms":10,"loss_pct":2}
//	{"t":"chat","text":"gg"}
//	{"t":"send","name":"buy","fields":{"item":3,"rush":true}}
//
// A send message is the page's own code's vkm.send: a project message for
// the client to send as its scripts' net.send does (send.go); the messages
// the server tells the player come back in the frame's "msgs", each
// [seq, name, 0, {fields}] as an effect is. A hello's sound may name a
// component field's "change" in place of an "event": the frame's
// "vkm.change" effect, {"field":"Score.coins"} at the entity, plays it.
//
// An input message sets the actions it names (the page names all of them
// each time); unknown names are skipped, axis values clamped to -1..1. A
// link message sets the settings it names, clamped to the sliders' limits.
// Anything else is ignored and counted in Stats.Bad.
//
// A js/wasm build (the browser client) has the messages and Sink but not
// the HTTP server (Server, Start, ServeAsset, ServeIcon, InTabPage,
// PageFiles, DefaultIcon): a file that names them is built for !js only.
package view
