package markdown

// squeeze turns every run of white space (ASCII spaces and no-break
// spaces) into one space. It works on bytes: it runs over whole pages.
func squeeze(s string) string {
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			space = true
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0xa0: // U+00A0
			space = true
			i++
		default:
			if space {
				b = append(b, ' ')
				space = false
			}
			b = append(b, c)
		}
	}
	if space {
		b = append(b, ' ')
	}
	return string(b)
}
