// JSON formula specs: every malformed spec is badspec naming the JSON path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid {
namespace {

using nlohmann::json;

struct BadSpec {
  const char* text;
  const char* expected;  ///< substring of the message: the path, and what was expected
};

// A small valid density map to embed; its members are broken one at a time below.
#define DENSITY(cells, box, data, v0, v1) \
  R"({"type":"density","cells":)" cells R"(,"box":)" box R"(,"data":)" data R"(,"v0":)" v0 R"(,"v1":)" v1 "}"
#define SPHERE R"({"type":"sphere","center":[0,0,0],"radius":1})"

const std::vector<BadSpec>& bad_specs() {
  static const std::vector<BadSpec> table{
      // Structure and types.
      {R"([1,2,3])", "(root): expected a shape object"},
      {R"({"center":[0,0,0],"radius":1})", "/type: missing member"},
      {R"({"type":7,"center":[0,0,0],"radius":1})", "/type: expected a string"},
      {R"({"type":"blob"})", "/type: unknown shape type \"blob\""},
      {R"({"type":"sphere","center":[0,0,0]})", "/radius: missing member"},
      {R"({"type":"sphere","center":[0,0,0],"radius":1,"radus":2})", "/radus: unknown member of a sphere"},
      {R"({"type":"sphere","center":[0,0],"radius":1})", "/center: expected an array of 3 finite numbers"},
      {R"({"type":"sphere","center":[0,0,0,0],"radius":1})", "/center: expected an array of 3"},
      {R"({"type":"sphere","center":"origin","radius":1})", "/center: expected an array of 3"},
      {R"({"type":"sphere","center":[0,"1",0],"radius":1})", "/center/1: expected a finite number"},
      {R"({"type":"sphere","center":[0,0,0],"radius":"1"})", "/radius: expected a finite number > 0, got string"},
      {R"({"type":"sphere","center":[0,0,0],"radius":true})", "/radius: expected a finite number > 0"},
      {R"({"type":"sphere","center":[0,0,0],"radius":null})", "/radius: expected a finite number > 0"},
      // Non-finite numbers: JSON has none, so they arrive as strings or overflow.
      {R"({"type":"sphere","center":[0,0,0],"radius":"nan"})", "/radius: expected a finite number > 0, got string \"nan\""},
      {R"({"type":"sphere","center":[0,0,0],"radius":"inf"})", "/radius: expected a finite number > 0, got string \"inf\""},
      {R"({"type":"sphere","center":["-Infinity",0,0],"radius":1})", "/center/0: expected a finite number"},
      {R"({"type":"sphere","center":[0,0,0],"radius":1e400})", "not valid JSON: [json.exception.out_of_range.406] number overflow"},
      {R"({"type":"sphere","center":[0,-1e999,0],"radius":1})", "not valid JSON: [json.exception.out_of_range.406] number overflow"},
      // Signs and ranges.
      {R"({"type":"sphere","center":[0,0,0],"radius":0})", "/radius: expected a finite number > 0, got 0"},
      {R"({"type":"sphere","center":[0,0,0],"radius":-1})", "/radius: expected a finite number > 0, got -1"},
      {R"({"type":"box","center":[0,0,0],"size":[1,0,1]})", "/size/1: expected an edge length > 0"},
      {R"({"type":"box","center":[0,0,0],"size":[1,1,1],"round":-0.1})", "/round: expected a finite number >= 0"},
      {R"({"type":"box","center":[0,0,0],"size":[1,2,3],"round":0.6})", "/round: expected at most half the smallest edge"},
      {R"({"type":"cylinder","start":[1,1,1],"end":[1,1,1],"radius":1})", "/end: expected an end different from start"},
      {R"({"type":"cylinder","start":[0,0,0],"end":[0,0,1],"radius":-2})", "/radius: expected a finite number > 0"},
      {R"({"type":"torus","center":[0,0,0],"major_radius":1,"minor_radius":1})", "/minor_radius: expected less than major_radius"},
      {R"({"type":"torus","center":[0,0,0],"major_radius":1,"minor_radius":0.2,"axis":[0,0,0]})", "/axis: expected a non-zero direction"},
      {R"({"type":"capsule","start":[0,0,0],"end":[0,0,1]})", "/radius: missing member"},
      {R"({"type":"halfspace","normal":[0,0,0]})", "/normal: expected a non-zero direction"},
      // CSG lists.
      {R"({"type":"union","of":[]})", "/of: expected a non-empty array of shapes"},
      {R"({"type":"union","of":{"type":"sphere"}})", "/of: expected a non-empty array of shapes"},
      {R"({"type":"intersection"})", "/of: missing member"},
      {R"({"type":"union","of":[)" SPHERE R"(,{"type":"sphere","center":[0,0,0],"radius":-1}]})", "/of/1/radius: expected a finite number > 0"},
      {R"({"type":"union","of":[)" SPHERE R"(,)" SPHERE R"(,{"type":"box","center":[0,0,0]}]})", "/of/2/size: missing member"},
      {R"({"type":"difference","from":)" SPHERE R"(,"subtract":[]})", "/subtract: expected a non-empty array"},
      {R"({"type":"difference","subtract":[)" SPHERE R"(]})", "/from: missing member"},
      {R"({"type":"difference","from":)" SPHERE R"(,"subtract":[)" SPHERE R"(,5]})", "/subtract/1: expected a shape object"},
      // Modifiers and transforms.
      {R"({"type":"offset","distance":0.1})", "/shape: missing member"},
      {R"({"type":"offset","distance":"far","shape":)" SPHERE "}", "/distance: expected a finite number or a number field object"},
      {R"({"type":"shell","thickness":-0.1,"shape":)" SPHERE "}", "/thickness: expected a finite number >= 0"},
      {R"({"type":"shell","thickness":0.1,"side":"middle","shape":)" SPHERE "}", "/side: expected \"center\", \"inside\" or \"outside\""},
      {R"({"type":"translate","by":[1,2],"shape":)" SPHERE "}", "/by: expected an array of 3 finite numbers"},
      {R"({"type":"translate","by":[1,2,3],"shape":{"type":"sphere","center":[0,0,0],"radius":0}})", "/shape/radius: expected a finite number > 0"},
      {R"({"type":"rotate","shape":)" SPHERE "}", "(root): expected either \"axis\" and \"angle\" or \"quaternion\""},
      {R"({"type":"rotate","axis":[0,0,1],"angle":1,"quaternion":[1,0,0,0],"shape":)" SPHERE "}", "expected either \"axis\" and \"angle\""},
      {R"({"type":"rotate","axis":[0,0,1],"shape":)" SPHERE "}", "/angle: missing member"},
      {R"({"type":"rotate","angle":1,"shape":)" SPHERE "}", "/axis: missing member"},
      {R"({"type":"rotate","axis":[0,0,1],"angle":"nan","shape":)" SPHERE "}", "/angle: expected a finite number"},
      {R"({"type":"rotate","quaternion":[1,0,0],"shape":)" SPHERE "}", "/quaternion: expected an array of 4 finite numbers"},
      {R"({"type":"rotate","quaternion":[0,0,0,0],"shape":)" SPHERE "}", "/quaternion: expected a quaternion of finite non-zero length"},
      {R"({"type":"scale","factor":0,"shape":)" SPHERE "}", "/factor: expected a finite number > 0"},
      {R"({"type":"scale","factor":-2,"shape":)" SPHERE "}", "/factor: expected a finite number > 0"},
      // Gyroid and number fields.
      {R"({"type":"gyroid","thickness":0.1})", "/cell: missing member"},
      {R"({"type":"gyroid","cell":0,"thickness":0.1})", "/cell: expected a finite number > 0"},
      {R"({"type":"gyroid","cell":1,"thickness":0.1,"origin":[0,0]})", "/origin: expected an array of 3"},
      {R"({"type":"gyroid","cell":{"type":"constant","value":-1},"thickness":0.1})", "/cell/value: expected a finite number > 0"},
      {R"({"type":"gyroid","cell":{"type":"ramp"},"thickness":0.1})", "/cell/type: unknown number field type"},
      {R"({"type":"gyroid","cell":{"value":1},"thickness":0.1})", "/cell/type: missing member"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,1]", "0.1", "0.2") R"(,"extra":1})", "/extra: unknown member of a gyroid"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1]", "[0,0,0,1,1,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/cells: expected an array of 3 integers"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,0,1]", "[0,0,0,1,1,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/cells/1: expected an integer in [1,"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2.5,1,1]", "[0,0,0,1,1,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/cells/0: expected an integer"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/box: expected an array of 6 finite numbers"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,0,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/box/4: expected a value greater than box[1]"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,\"inf\"]", "[0,1]", "0.1", "0.2") "}", "/thickness/box/5: expected a finite number"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,1,1]", "0.1", "0.2") "}", "/thickness/data: expected 2 values (nx*ny*nz), got 3"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,2,2]", "[0,0,0,1,1,1]", "[0,1]", "0.1", "0.2") "}", "/thickness/data: expected 8 values (nx*ny*nz), got 2"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,1.5]", "0.1", "0.2") "}", "/thickness/data/1: expected a number in [0, 1], got 1.5"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[-0.01,1]", "0.1", "0.2") "}", "/thickness/data/0: expected a number in [0, 1]"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,\"nan\"]", "0.1", "0.2") "}", "/thickness/data/1: expected a number in [0, 1], got string"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "{}", "0.1", "0.2") "}", "/thickness/data: expected an array of numbers"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,1]", "-0.1", "0.2") "}", "/thickness/v0: expected a finite number >= 0"},
      {R"({"type":"gyroid","cell":)" DENSITY("[2,1,1]", "[0,0,0,1,1,1]", "[0,1]", "0.5", "0") R"(,"thickness":0.1})", "/cell/v1: expected a finite number > 0"},
      {R"({"type":"gyroid","cell":1,"thickness":{"type":"density","cells":[1,1,1],"box":[0,0,0,1,1,1],"data":[0.5],"v0":0.1}})", "/thickness/v1: missing member"},
      {R"({"type":"gyroid","cell":1,"thickness":{"type":"density","cells":[1,1,1],"box":[0,0,0,1,1,1],"data":[0.5],"v0":0.1,"v1":0.2,"v2":3}})", "/thickness/v2: unknown member of a density map"},
      {R"({"type":"gyroid","cell":1,"thickness":)" DENSITY("[100000,100000,100000]", "[0,0,0,1,1,1]", "[0]", "0.1", "0.2") "}", "/thickness/cells: expected at most"},
      // Deep inside a tree, with escaped member names.
      {R"({"type":"translate","by":[0,0,0],"shape":{"type":"union","of":[)" SPHERE R"(,{"type":"offset","distance":0.1,"shape":{"type":"sphere","center":[0,0,0],"radius":1,"a/b":1}}]}})",
       "/shape/of/1/shape/a~1b: unknown member of a sphere"},
  };
  return table;
}

TEST(FieldJson, everyMalformedSpecIsBadspecNamingItsPath) {
  for (const BadSpec& bad : bad_specs()) {
    for (int storage = 0; storage < 2; ++storage) {
      try {
        if (storage == 0)
          (void)compile_field_text<double>(bad.text, "spec.json");
        else
          (void)compile_field_text<float>(bad.text, "spec.json");
        ADD_FAILURE() << "accepted: " << bad.text;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::badspec) << bad.text;
        const std::string message = e.what();
        EXPECT_NE(message.find(bad.expected), std::string::npos)
            << "message: " << message << "\nexpected to contain: " << bad.expected;
        EXPECT_EQ(message.rfind("spec.json: ", 0), 0u) << message;  // names the source first
      }
    }
  }
}

TEST(FieldJson, malformedJsonTextIsBadspecNamingSourceAndByte) {
  for (const char* text : {"", "{", R"({"type":"sphere",})", "[1,2", "{\"type\": nan}", "\x01", "{} trailing"}) {
    try {
      (void)compile_field_text<double>(text, "part.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badspec);
      const std::string message = e.what();
      EXPECT_NE(message.find("part.json: not valid JSON at byte"), std::string::npos) << message;
    }
  }
}

TEST(FieldJson, nonFiniteNumbersBuiltInMemoryAreRejected) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const json spec = {{"type", "sphere"}, {"center", {0.0, bad, 0.0}}, {"radius", 1.0}};
    try {
      (void)compile_field<double>(spec);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badspec);
      EXPECT_NE(std::string(e.what()).find("/center/1: expected a finite number"), std::string::npos) << e.what();
    }
  }
}

TEST(FieldJson, absurdNestingIsBadspecNotAStackOverflow) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += R"({"type":"translate","by":[0,0,0],"shape":)";
  text += SPHERE;
  for (int i = 0; i < 5000; ++i) text += "}";
  try {
    (void)compile_field_text<double>(text, "deep.json");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badspec);
    EXPECT_NE(std::string(e.what()).find("nested deeper than"), std::string::npos) << e.what();
  }
}

TEST(FieldJson, acceptsEveryDocumentedFormIncludingCommentsAndDefaults) {
  const char* spec = R"({
    "comment": "every node type once",
    "type": "union",
    "of": [
      {"type": "sphere", "center": [0, 0, 0], "radius": 0.5},
      {"type": "box", "center": [1, 0, 0], "size": [0.5, 0.5, 0.5], "round": 0.1},
      {"type": "cylinder", "start": [0, 0, 1], "end": [0, 0, 2], "radius": 0.2},
      {"type": "torus", "center": [2, 0, 0], "major_radius": 0.4, "minor_radius": 0.1},
      {"type": "capsule", "start": [0, 2, 0], "end": [1, 2, 0], "radius": 0.1},
      {"type": "intersection", "of": [{"type": "halfspace", "normal": [0, 0, -1], "offset": 3},
                                      {"type": "sphere", "center": [0, 0, -3], "radius": 0.5}]},
      {"type": "difference", "from": {"type": "sphere", "center": [3, 0, 0], "radius": 0.5},
       "subtract": [{"type": "sphere", "center": [3, 0, 0.5], "radius": 0.2}]},
      {"type": "offset", "distance": {"type": "constant", "value": 0.05},
       "shape": {"type": "sphere", "center": [0, 3, 0], "radius": 0.2}},
      {"type": "shell", "thickness": 0.05, "side": "inside",
       "shape": {"type": "sphere", "center": [0, -3, 0], "radius": 0.4}},
      {"type": "translate", "by": [0, 0, 4], "shape": {"type": "sphere", "center": [0, 0, 0], "radius": 0.2}},
      {"type": "rotate", "axis": [0, 1, 0], "angle": 0.5, "shape": {"type": "box", "center": [0, 0, 5], "size": [1, 1, 1]}},
      {"type": "rotate", "quaternion": [1, 0, 0, 0], "shape": {"type": "sphere", "center": [5, 0, 0], "radius": 0.1}},
      {"type": "scale", "factor": 2, "shape": {"type": "sphere", "center": [0, 0, -5], "radius": 0.1}},
      {"type": "intersection", "of": [
        {"type": "box", "center": [-3, 0, 0], "size": [1, 1, 1]},
        {"type": "gyroid", "cell": 0.5, "origin": [1, 2, 3],
         "thickness": {"type": "density", "cells": [2, 1, 1], "box": [-3.5, -0.5, -0.5, -2.5, 0.5, 0.5],
                       "data": [0, 1], "v0": 0.05, "v1": 0.1}}]}
    ]
  })";
  const Field<double> f = compile_field_text<double>(spec, "all.json");
  EXPECT_GT(f.node_count(), 25u);
  EXPECT_TRUE(f.bounds().finite());
  EXPECT_DOUBLE_EQ(f.eval(0.0, 0.0, 0.0), -0.5);
}

TEST(FieldJson, aFormulaWithNoFiniteBoxCompiles) {
  const Field<double> f = compile_field_text<double>(R"({"type":"gyroid","cell":1,"thickness":0.1})", "g");
  EXPECT_FALSE(f.bounds().finite());
  const Field<float> h = compile_field_text<float>(R"({"type":"halfspace","normal":[1,1,0]})", "h");
  EXPECT_FALSE(h.bounds().finite());
}

}  // namespace
}  // namespace distgrid
