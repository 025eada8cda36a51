module example.com/semantics

go 1.25

require example.com/dep v0.0.0

replace example.com/dep => ../dep
