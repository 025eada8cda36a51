package rangechan

func f(ch chan int, ro <-chan string, funcs *[]func() int) int {
	total := 0
	for v := range ch {
		total += v
		*funcs = append(*funcs, func() int { return v })
		if v > 10 {
			break
		}
		if v < 0 {
			continue
		}
	}
	for range ro {
		total++
	}
	for _ = range ro {
	}
	var s string
	for s = range ro {
	}
	_ = s
	for v := range ch {
		v := v + 1
		_ = v
	}
loop:
	for x := range ro {
		if x == "" {
			break loop
		}
		continue loop
	}
	return total
}
