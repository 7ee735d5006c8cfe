module example.com/corpus

go 1.19
