// SiftWaterfall
