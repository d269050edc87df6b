package record

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"vkm/host/game"
	"vkm/internal/entity"
)

// Dump writes g's world as text for a bug report: the tick and the world
// hash, the seated players, then every live entity in slot order with its
// name, parent, transform, body, rigidbody, character controller and
// components (by the schema's type and field names).
func Dump(w io.Writer, g *game.Game) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d\nworld hash %016x\nphysics hash %016x\n", g.Tick(), WorldHash(g), g.Physics().Hash())
	for _, p := range g.Players() {
		fmt.Fprintf(&b, "player %d %q entity %v", p.Number, p.Name, p.Entity)
		if p.RTT != 0 {
			fmt.Fprintf(&b, " rtt %v (as the scripts last read it)", p.RTT)
		}
		b.WriteByte('\n')
	}
	st := g.Store()
	schema := g.Schema()
	fmt.Fprintf(&b, "entities %d\n", st.Len())
	st.Each(func(id entity.ID) bool {
		fmt.Fprintf(&b, "entity %v %q", id, st.Name(id))
		if p := st.Parent(id); !p.IsNone() {
			fmt.Fprintf(&b, " parent %v", p)
		}
		b.WriteByte('\n')
		if t := st.Transform(id); t != nil {
			fmt.Fprintf(&b, "  transform x %s y %s angle %s scale %s\n", num(t.X), num(t.Y), num(t.Angle), num(t.Scale))
		}
		if def := st.Body(id); def != nil {
			fmt.Fprintf(&b, "  body %s mass %s\n", def.Type, num(g.Physics().Mass(id)))
		}
		if rb := st.Rigidbody(id); rb != nil {
			fmt.Fprintf(&b, "  rigidbody vx %s vy %s angular %s awake %t\n", num(rb.VX), num(rb.VY), num(rb.AngularVelocity), rb.Awake)
		}
		if c := st.Controller(id); c != nil {
			fmt.Fprintf(&b, "  controller grounded %t\n", c.Grounded)
		}
		st.EachComponent(id, func(typ int, v entity.Values) {
			name := "#" + strconv.Itoa(typ)
			var fields []string
			if typ < len(schema.Types) {
				name = schema.Types[typ].Name
				for _, f := range schema.Types[typ].Fields {
					fields = append(fields, f.Name)
				}
			}
			fmt.Fprintf(&b, "  %s", name)
			for i, x := range v {
				f := strconv.Itoa(i)
				if i < len(fields) {
					f = fields[i]
				}
				fmt.Fprintf(&b, " %s %s", f, num(x))
			}
			b.WriteByte('\n')
		})
		return true
	})
	_, err := io.WriteString(w, b.String())
	return err
}

// num writes f as the shortest text that reads back to the same bits.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
