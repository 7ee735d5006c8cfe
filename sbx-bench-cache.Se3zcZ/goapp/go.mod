module example.com/app

go 1.19

require example.com/dep v1.0.0
