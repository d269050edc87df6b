package conformance

import "fmt"

// Goodbye sizes ("Messages"): 13 bytes, 37 sealed.
const (
	GoodbyeLen       = 13
	SealedGoodbyeLen = GoodbyeLen + sealedOverhead
)

// Goodbye reasons ("Messages", Goodbye); a reason not known is kept as a
// number.
const (
	GoodbyeQuit     = 1
	GoodbyeShutdown = 2
	GoodbyeTimeout  = 3
	GoodbyeKicked   = 4
	GoodbyeProtocol = 5
	GoodbyeFlood    = 6
)

// Goodbye is a decoded Goodbye (kind 5).
type Goodbye struct {
	Header
	Reason uint8
}

// ParseGoodbye decodes an unsealed Goodbye.
func ParseGoodbye(b []byte) (Goodbye, error) {
	h, err := expectKind(b, KindGoodbye)
	if err != nil {
		return Goodbye{}, err
	}
	if len(b) != GoodbyeLen {
		return Goodbye{}, fmt.Errorf("conformance: goodbye of %d bytes, not %d", len(b), GoodbyeLen)
	}
	return Goodbye{Header: h, Reason: b[12]}, nil
}
