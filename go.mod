module vkm

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/ByteArena/box2d v1.0.2
	github.com/coder/websocket v1.8.15
	github.com/dchest/siphash v1.2.3
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.50.0
)

require github.com/pmezard/go-difflib v1.0.0 // indirect
