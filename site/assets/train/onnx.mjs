// The trained weights as an ONNX file, written in the tab: the graph export/onnx_export.py's
// `to_onnx` builds (IR 8, opset 17: Gather -> Transpose -> one LSTM per layer -> Transpose -> MatMul
// + Add), serialized by hand as protobuf bytes. Read export/onnx_export.py first; a test checks that
// these bytes equal `to_onnx(params, config).SerializeToString()` for the same weights, byte for byte.
//
//   const bytes = toOnnx(params, config)     // Uint8Array: what onnxruntime(-web) opens
//
// Protobuf in brief: a message is a list of fields, each a key (field number << 3 | wire type)
// then a value: wire type 0 a varint, 2 a length and that many bytes (strings, bytes, nested
// messages). onnx.proto is proto2, so repeated integers are written one key each (not packed), and
// protobuf writes fields in field-number order, which this file follows.

const VARINT = 0,
  BYTES = 2;
const FLOAT = 1,
  INT64 = 7; // TensorProto.DataType
const ATTR_INT = 2,
  ATTR_INTS = 7; // AttributeProto.AttributeType
const text = new TextEncoder();

// ---- a protobuf writer: a message is an array of byte chunks ----------------------------------------

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Uint8Array.from(out);
}

class Message {
  constructor() {
    this.chunks = [];
    this.length = 0;
  }
  push(bytes) {
    this.chunks.push(bytes);
    this.length += bytes.length;
    return this;
  }
  int(field, value) {
    return this.push(varint((field << 3) | VARINT)).push(varint(value));
  }
  ints(field, values) {
    values.forEach((v) => this.int(field, v));
    return this;
  }
  bytes(field, bytes) {
    return this.push(varint((field << 3) | BYTES))
      .push(varint(bytes.length))
      .push(bytes);
  }
  string(field, s) {
    return this.bytes(field, text.encode(s));
  }
  message(field, m) {
    return this.bytes(field, m.finish());
  }
  finish() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

// ---- ONNX's messages (the fields onnx_export.py uses) -----------------------------------------------

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian, as numpy_helper.from_array). */
function tensor(name, dims, array) {
  const type = array instanceof BigInt64Array ? INT64 : FLOAT;
  return new Message()
    .ints(1, dims)
    .int(2, type)
    .string(8, name)
    .bytes(9, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
}

/** NodeProto: input 1, output 2, op_type 4, attribute 5 (name 1, i 3, ints 8, type 20), sorted by name as helper.make_node does. */
function node(op, inputs, outputs, attributes = {}) {
  const m = new Message();
  inputs.forEach((s) => m.string(1, s));
  outputs.forEach((s) => m.string(2, s));
  m.string(4, op);
  for (const name of Object.keys(attributes).sort()) {
    const v = attributes[name],
      a = new Message().string(1, name);
    if (Array.isArray(v)) a.ints(8, v).int(20, ATTR_INTS);
    else a.int(3, v).int(20, ATTR_INT);
    m.message(5, a);
  }
  return m;
}

/** ValueInfoProto: name 1, type 2 -> TypeProto.tensor_type 1 -> elem_type 1, shape 2 -> dim 1 (dim_value 1 | dim_param 2). */
function valueInfo(name, elemType, dims) {
  const shape = new Message();
  for (const d of dims) shape.message(1, typeof d === "number" ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, elemType).message(2, shape);
  return new Message().string(1, name).message(2, new Message().message(1, tensorType));
}

// ---- weights in ONNX's layout (onnx_lstm_weights) ------------------------------------------------------

/** Our (rows, 4H) with gate blocks i, f, o, g -> ONNX's (4H, rows) with blocks i, o, f, c: reordered and transposed. */
function gatesTransposed(w, rows, H) {
  const from = [0, 2, 1, 3]; // ONNX block k is our block from[k]
  const out = new Float32Array(rows * 4 * H);
  for (let k = 0; k < 4; k++)
    for (let j = 0; j < H; j++) for (let r = 0; r < rows; r++) out[(k * H + j) * rows + r] = w[r * 4 * H + from[k] * H + j];
  return out;
}

// --8<-- [start:to-onnx]
/** The same graph as onnx_export.to_onnx(params, config), as the bytes SerializeToString() gives. */
export function toOnnx(params, config) {
  const { layers: L, hidden: H, vocab_size: V, embed: E } = config;
  const int64 = (v) => BigInt64Array.from([BigInt(v)]);
  const inits = [
    tensor("embed", [V, E], params.embed),
    tensor("W_out", [H, V], params.W_out),
    tensor("b_out", [V], params.b_out),
    tensor("axis1", [1], int64(1)),
  ];
  const nodes = [
    node("Gather", ["embed", "input_ids"], ["emb"], { axis: 0 }), // (B, T, E)
    node("Transpose", ["emb"], ["x0"], { perm: [1, 0, 2] }),
  ]; // (T, B, E)
  for (let l = 0; l < L; l++) {
    const rows = l === 0 ? E : H;
    const B = new Float32Array(8 * H);
    B.set(gatesTransposed(params[`b${l}`], 1, H)); // [b | zeros]: ONNX adds a second bias
    inits.push(
      tensor(`W${l}`, [1, 4 * H, rows], gatesTransposed(params[`W_x${l}`], rows, H)),
      tensor(`R${l}`, [1, 4 * H, H], gatesTransposed(params[`W_h${l}`], H, H)),
      tensor(`B${l}`, [1, 8 * H], B),
      tensor(`start${l}`, [1], int64(l)),
      tensor(`end${l}`, [1], int64(l + 1)),
    );
    nodes.push(
      node("Slice", ["h0", `start${l}`, `end${l}`], [`h0_${l}`]), // (1, B, H)
      node("Slice", ["c0", `start${l}`, `end${l}`], [`c0_${l}`]),
      node("LSTM", [`x${l}`, `W${l}`, `R${l}`, `B${l}`, "", `h0_${l}`, `c0_${l}`], [`y${l}`, `hn_${l}`, `cn_${l}`], { hidden_size: H }),
      node("Squeeze", [`y${l}`, "axis1"], [`x${l + 1}`]),
    ); // (T, B, H)
  }
  const all = (name) => Array.from({ length: L }, (_, l) => `${name}_${l}`);
  nodes.push(
    node("Concat", all("hn"), ["hn"], { axis: 0 }),
    node("Concat", all("cn"), ["cn"], { axis: 0 }),
    node("Transpose", [`x${L}`], ["top"], { perm: [1, 0, 2] }), // (B, T, H)
    node("MatMul", ["top", "W_out"], ["scores"]),
    node("Add", ["scores", "b_out"], ["logits"]),
  );
  const graph = new Message();
  nodes.forEach((n) => graph.message(1, n));
  graph.string(2, "tinyllm");
  inits.forEach((t) => graph.message(5, t));
  [
    valueInfo("input_ids", INT64, ["batch", "seq"]),
    valueInfo("h0", FLOAT, [L, "batch", H]),
    valueInfo("c0", FLOAT, [L, "batch", H]),
  ].forEach((v) => graph.message(11, v));
  [
    valueInfo("logits", FLOAT, ["batch", "seq", V]),
    valueInfo("hn", FLOAT, [L, "batch", H]),
    valueInfo("cn", FLOAT, [L, "batch", H]),
  ].forEach((v) => graph.message(12, v));
  return new Message()
    .int(1, 8)
    .string(2, "lllm-export")
    .message(7, graph) // IR version 8
    .message(8, new Message().string(1, "").int(2, 17))
    .finish(); // opset 17
}
// --8<-- [end:to-onnx]
