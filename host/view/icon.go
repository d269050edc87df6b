//go:build !js

package view

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sync"
)

// DefaultIcon returns the page's icon when the project names none: a
// 32×32 PNG, the page's own player (a blue disc) on its background.
var DefaultIcon = sync.OnceValue(func() []byte {
	const n = 32
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	bg := color.NRGBA{0x1a, 0x1d, 0x24, 0xff}
	ring := color.NRGBA{0xff, 0xd8, 0x4a, 0xff}
	disc := color.NRGBA{0x3f, 0xb6, 0xff, 0xff}
	for y := range n {
		for x := range n {
			dx, dy := float64(x)-15.5, float64(y)-15.5
			switch d := dx*dx + dy*dy; {
			case d <= 10*10:
				img.Set(x, y, disc)
			case d <= 13*13:
				img.Set(x, y, ring)
			default:
				img.Set(x, y, bg)
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic("view: " + err.Error()) // encoding an in-memory image cannot fail
	}
	return b.Bytes()
})
