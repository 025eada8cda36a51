module example.com/bubblepass

go 1.25
