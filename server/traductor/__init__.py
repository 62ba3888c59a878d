"""traductor: an English->Spanish Transformer, exported to ONNX and served over gRPC."""

__version__ = "0.1.0"
