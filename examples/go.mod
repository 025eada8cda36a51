module heddle.dev/examples

go 1.21
