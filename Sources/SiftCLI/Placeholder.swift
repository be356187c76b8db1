// SiftCLI
