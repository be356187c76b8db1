// SiftCorrelate
