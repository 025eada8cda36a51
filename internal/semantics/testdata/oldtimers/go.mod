module example.com/oldtimers

go 1.22
