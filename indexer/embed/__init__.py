"""The embedding model: its spec, its sha256 stamp, the ONNX run."""
