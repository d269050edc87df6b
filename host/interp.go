package host

// drawnTime is the server tick, with its fraction, that this client is
// drawing the entities it does not simulate at: what a shot fired now was
// aimed at, which the server rewinds to.
func (c *clientSession) drawnTime() float64 {
	return float64(c.snap.Tick)
}
