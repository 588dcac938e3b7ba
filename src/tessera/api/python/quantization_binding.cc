// quantize(model_input, model_output, options, next_feed): options is a dict
// with the names of ORT's quantize_static / quantize_dynamic arguments
// (enums as their integer values, extra_options as text), next_feed a
// callable returning the next calibration feed dict or None.
#include "tessera/api/python/quantization_binding.h"

#include <pybind11/stl.h>

#include "tessera/format/model_loader.h"
#include "tessera/quantization/quantizer.h"

namespace py = pybind11;

namespace tessera {

namespace {

std::vector<std::string> Strings(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return {};
  return d[key].cast<std::vector<std::string>>();
}

bool Flag(const py::dict& d, const char* key, bool fallback) {
  return d.contains(key) && !d[key].is_none() ? d[key].cast<bool>() : fallback;
}

int Int(const py::dict& d, const char* key, int fallback) {
  return d.contains(key) && !d[key].is_none() ? d[key].cast<int>() : fallback;
}

quant::QuantizeOptions OptionsFrom(const py::dict& d, std::vector<std::string>& warnings) {
  quant::QuantizeOptions o;
  o.mode = d["mode"].cast<std::string>() == "dynamic" ? quant::QuantMode::kDynamic : quant::QuantMode::kStatic;
  o.format = static_cast<quant::QuantFormat>(Int(d, "quant_format", static_cast<int>(o.format)));
  o.op_types_to_quantize = Strings(d, "op_types_to_quantize");
  o.op_types_to_exclude = Strings(d, "op_types_to_exclude");
  o.nodes_to_quantize = Strings(d, "nodes_to_quantize");
  o.nodes_to_exclude = Strings(d, "nodes_to_exclude");
  o.per_channel = Flag(d, "per_channel", false);
  o.reduce_range = Flag(d, "reduce_range", false);
  o.weight_type = static_cast<quant::QuantType>(Int(d, "weight_type", 0));
  o.activation_type = static_cast<quant::QuantType>(Int(d, "activation_type", 0));
  o.calibrate_method = static_cast<quant::CalibrationMethod>(Int(d, "calibrate_method", 0));
  o.use_external_data_format = Flag(d, "use_external_data_format", false);
  std::map<std::string, std::string> extra;
  if (d.contains("extra_options") && !d["extra_options"].is_none())
    extra = d["extra_options"].cast<std::map<std::string, std::string>>();
  warnings = quant::ApplyExtraOptions(extra, o);
  return o;
}

}  // namespace

void BindQuantization(py::module_& m, std::function<Tensor(py::object, const std::string&)> to_tensor) {
  m.def(
      "quantize",
      [to_tensor](const py::object& source, const std::string& output, const py::dict& options,
                  const py::object& next_feed) {
        std::vector<std::string> warnings;
        const quant::QuantizeOptions o = OptionsFrom(options, warnings);
        Model model;
        if (py::isinstance<py::bytes>(source)) {
          std::string_view bytes = source.cast<std::string_view>();
          model = LoadModelFromBytes(bytes.data(), bytes.size());
        } else {
          model = LoadModelFromFile(source.cast<std::string>());
        }
        quant::FeedSource next = [&](Feeds& feeds) {
          if (next_feed.is_none()) return false;
          py::object batch = next_feed();
          if (batch.is_none()) return false;
          if (!py::isinstance<py::dict>(batch))
            throw Error(StatusCode::kInvalidArgument,
                        "CalibrationDataReader.get_next() must return a dict of input name -> array, or None");
          for (auto [k, v] : py::reinterpret_borrow<py::dict>(batch)) {
            const std::string name = py::str(k);
            feeds.emplace_back(name, Value(to_tensor(py::reinterpret_borrow<py::object>(v),
                                                     "calibration input '" + name + "'")));
          }
          return true;
        };
        quant::QuantizeReport report = quant::QuantizeModel(model, o, next);
        for (auto& w : warnings) report.warnings.push_back(std::move(w));
        quant::SaveQuantizedModel(model, output, o.use_external_data_format);
        py::dict out;
        out["quantized"] = report.quantized;
        py::list left;
        for (const auto& l : report.left_float) left.append(py::make_tuple(l.node, l.op_type, l.reason));
        out["left_float"] = left;
        out["warnings"] = report.warnings;
        out["calibration_batches"] = report.calibration_batches;
        out["summary"] = quant::DescribeReport(report);
        return out;
      },
      py::arg("model_input"), py::arg("model_output"), py::arg("options"), py::arg("next_feed"),
      "Quantizes a model (see tessera.quantization).");
}

}  // namespace tessera
