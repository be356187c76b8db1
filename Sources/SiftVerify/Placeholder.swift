// SiftVerify
