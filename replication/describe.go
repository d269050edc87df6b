package replication

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Describe returns the schema as `vkmd PROJECT --schema` prints it: a line
// per wire type (its index, name and where it came from), an indented line
// per field with what carries it, then the project's messages (numbered
// from 0, as on the wire) likewise, and last the fingerprint a join
// compares.
func (s *Schema) Describe() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i, t := range engineTypes {
		fmt.Fprintf(tw, "%d %s (engine)\n", i, t.name)
		for _, f := range t.fields {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.name, f.codec, f.note)
		}
	}
	for i, t := range s.Types {
		where := "project"
		if t.Where != "" {
			where += ", " + t.Where
		}
		fmt.Fprintf(tw, "%d %s (%s)\n", EngineTypes+i, t.Name, where)
		for _, f := range t.Fields {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Name, describeCodec(f.Codec), plural(f.Codec.Bits, "bit"))
		}
	}
	for i, t := range s.Messages {
		where := "message"
		if t.Where != "" {
			where += ", " + t.Where
		}
		fmt.Fprintf(tw, "message %d %s (%s)\n", i, t.Name, where)
		for _, f := range t.Fields {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Name, describeCodec(f.Codec), plural(f.Codec.Bits, "bit"))
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "fingerprint %016x\n", s.Fingerprint())
	return b.String()
}

// describeCodec says a project field's codec as a script writes it.
func describeCodec(c Codec) string {
	switch c.Kind {
	case Int:
		return fmt.Sprintf("int %g..%g", c.Min, c.Max)
	case Fixed:
		return fmt.Sprintf("fixed %g..%g step %g", c.Min, c.Max, c.Step)
	}
	return c.Kind.String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
