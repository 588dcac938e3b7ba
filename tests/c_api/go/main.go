// A Go client of Tessera's libonnxruntime.so.1 through github.com/yalue/onnxruntime_go,
// unchanged: load the library, read the default model's inputs, outputs and
// metadata, run it with a static and a dynamic session and compare, and get
// a wrongly shaped input refused. Not part of ctest (the Go module is not in
// the repository): run_go_client.sh builds it against a local copy.
//
// go run . LIB models/default/model.onnx
package main

import (
	"fmt"
	"math"
	"os"

	ort "github.com/yalue/onnxruntime_go"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go_client: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: go_client LIB MODEL")
	}
	lib, model := os.Args[1], os.Args[2]
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		fail("InitializeEnvironment: %v", err)
	}
	defer ort.DestroyEnvironment()
	if v := ort.GetVersion(); v != "1.30.0" {
		fail("GetVersion = %q", v)
	}

	inputs, outputs, err := ort.GetInputOutputInfo(model)
	if err != nil {
		fail("GetInputOutputInfo: %v", err)
	}
	if len(inputs) != 1 || inputs[0].Name != "image" || len(outputs) != 1 || outputs[0].Name != "probabilities" {
		fail("unexpected inputs %v / outputs %v", inputs, outputs)
	}
	meta, err := ort.GetModelMetadata(model)
	if err != nil {
		fail("GetModelMetadata: %v", err)
	}
	producer, err := meta.GetProducerName()
	if err != nil {
		fail("GetProducerName: %v", err)
	}
	meta.Destroy()

	data := make([]float32, 2*3*32*32)
	for i := range data {
		data[i] = float32(i%13) / 13
	}
	input, err := ort.NewTensor(ort.NewShape(2, 3, 32, 32), data)
	if err != nil {
		fail("NewTensor: %v", err)
	}
	defer input.Destroy()
	output, err := ort.NewEmptyTensor[float32](ort.NewShape(2, 10))
	if err != nil {
		fail("NewEmptyTensor: %v", err)
	}
	defer output.Destroy()
	options, err := ort.NewSessionOptions()
	if err != nil {
		fail("NewSessionOptions: %v", err)
	}
	defer options.Destroy()
	if err := options.SetIntraOpNumThreads(2); err != nil {
		fail("SetIntraOpNumThreads: %v", err)
	}
	session, err := ort.NewAdvancedSession(model, []string{"image"}, []string{"probabilities"},
		[]ort.Value{input}, []ort.Value{output}, options)
	if err != nil {
		fail("NewAdvancedSession: %v", err)
	}
	defer session.Destroy()
	if err := session.Run(); err != nil {
		fail("Run: %v", err)
	}
	probabilities := output.GetData()
	for row := 0; row < 2; row++ {
		sum := float32(0)
		for _, p := range probabilities[row*10 : row*10+10] {
			sum += p
		}
		if math.Abs(float64(sum)-1) > 1e-4 {
			fail("softmax row %d sums to %v", row, sum)
		}
	}

	// A dynamic session allocates the output itself: same numbers.
	dynamic, err := ort.NewDynamicAdvancedSession(model, []string{"image"}, []string{"probabilities"}, nil)
	if err != nil {
		fail("NewDynamicAdvancedSession: %v", err)
	}
	defer dynamic.Destroy()
	results := []ort.Value{nil}
	if err := dynamic.Run([]ort.Value{input}, results); err != nil {
		fail("dynamic Run: %v", err)
	}
	defer results[0].Destroy()
	again := results[0].(*ort.Tensor[float32]).GetData()
	for i := range again {
		if again[i] != probabilities[i] {
			fail("dynamic run differs at %d: %v vs %v", i, again[i], probabilities[i])
		}
	}

	// Errors come back as Go errors with Tessera's message.
	wrong, _ := ort.NewTensor(ort.NewShape(1, 3, 8, 8), make([]float32, 3*8*8))
	defer wrong.Destroy()
	if err := dynamic.Run([]ort.Value{wrong}, []ort.Value{nil}); err == nil {
		fail("a wrongly shaped input ran")
	} else {
		fmt.Printf("go_client: wrong shape refused: %v\n", err)
	}
	fmt.Printf("go_client: onnxruntime_go on %s: model by %q ran, static and dynamic sessions agree\n", lib, producer)
}
