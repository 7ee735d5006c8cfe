module example.com/forms

go 1.19
