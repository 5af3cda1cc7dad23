// Package concat is stringConcats' test input: each + and += of it, on
// strings and on numbers.
package concat

type name string

func join(a, b string, n name, i int) (string, int) {
	s := a + b
	s += "!"
	_ = n + "x"
	return s, i + 1
}
