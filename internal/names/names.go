// Package names finds the name a user most likely meant: the engine's
// errors suggest one for a mistyped project key or Lua method.
package names

// maxLen bounds the strings Distance compares: a longer one is never a
// slip of a short name, and the bound keeps the cost of a hostile input
// small.
const maxLen = 64

// Distance is the Levenshtein distance between a and b, in bytes, or a
// large number when either is longer than 64 bytes.
func Distance(a, b string) int {
	if len(a) > maxLen || len(b) > maxLen {
		return 1 << 30
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
