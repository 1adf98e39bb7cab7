module example.com/canmod

go 1.24

require example.com/dep

replace => ../x
