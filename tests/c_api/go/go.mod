module tessera/tests/c_api/go

go 1.19

require github.com/yalue/onnxruntime_go v0.0.0
