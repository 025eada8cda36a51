module example.com/parbench

go 1.22
