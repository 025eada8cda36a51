module example.com/dep
