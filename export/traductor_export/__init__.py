"""Checkpoint -> ONNX bundle (`traductor export`): load, validate, optimize, save."""
