# LiteRT schema facts for the struct-level reader: enum values, union cases, table layouts.
#
# Schema sha256: 3741d5b8e81686333055a0008d24527c879b2bb695e8763f3d203f3ff5914709
# Generated from schema.fbs by: python scripts/generate_litert_tables.py (do not edit).
# The schema is Copyright 2017 The TensorFlow Authors, licensed under Apache-2.0.
"""Enum values, union cases and table layouts of the LiteRT schema, as plain data.

What :mod:`helia_aot.converters.litert.unpack` needs to read a model without the flatc
bindings (``schema_py_generated``, 1 MB of bytecode): the enum classes have the bindings'
names and values; ``UNIONS`` maps a union's tag to its table; ``TABLES`` lists each table's
object-API fields as (attribute, vtable slot, kind, default), kinds as described in
``scripts/generate_litert_tables.py``.
"""

from __future__ import annotations


class TensorType:
    FLOAT32 = 0
    FLOAT16 = 1
    INT32 = 2
    UINT8 = 3
    INT64 = 4
    STRING = 5
    BOOL = 6
    INT16 = 7
    COMPLEX64 = 8
    INT8 = 9
    FLOAT64 = 10
    COMPLEX128 = 11
    UINT64 = 12
    RESOURCE = 13
    VARIANT = 14
    UINT32 = 15
    UINT16 = 16
    INT4 = 17
    BFLOAT16 = 18
    INT2 = 19
    UINT4 = 20
    FLOAT8_E4M3FN = 21
    FLOAT8_E5M2 = 22


class DimensionType:
    DENSE = 0
    SPARSE_CSR = 1


class BuiltinOperator:
    ADD = 0
    AVERAGE_POOL_2D = 1
    CONCATENATION = 2
    CONV_2D = 3
    DEPTHWISE_CONV_2D = 4
    DEPTH_TO_SPACE = 5
    DEQUANTIZE = 6
    EMBEDDING_LOOKUP = 7
    FLOOR = 8
    FULLY_CONNECTED = 9
    HASHTABLE_LOOKUP = 10
    L2_NORMALIZATION = 11
    L2_POOL_2D = 12
    LOCAL_RESPONSE_NORMALIZATION = 13
    LOGISTIC = 14
    LSH_PROJECTION = 15
    LSTM = 16
    MAX_POOL_2D = 17
    MUL = 18
    RELU = 19
    RELU_N1_TO_1 = 20
    RELU6 = 21
    RESHAPE = 22
    RESIZE_BILINEAR = 23
    RNN = 24
    SOFTMAX = 25
    SPACE_TO_DEPTH = 26
    SVDF = 27
    TANH = 28
    CONCAT_EMBEDDINGS = 29
    SKIP_GRAM = 30
    CALL = 31
    CUSTOM = 32
    EMBEDDING_LOOKUP_SPARSE = 33
    PAD = 34
    UNIDIRECTIONAL_SEQUENCE_RNN = 35
    GATHER = 36
    BATCH_TO_SPACE_ND = 37
    SPACE_TO_BATCH_ND = 38
    TRANSPOSE = 39
    MEAN = 40
    SUB = 41
    DIV = 42
    SQUEEZE = 43
    UNIDIRECTIONAL_SEQUENCE_LSTM = 44
    STRIDED_SLICE = 45
    BIDIRECTIONAL_SEQUENCE_RNN = 46
    EXP = 47
    TOPK_V2 = 48
    SPLIT = 49
    LOG_SOFTMAX = 50
    DELEGATE = 51
    BIDIRECTIONAL_SEQUENCE_LSTM = 52
    CAST = 53
    PRELU = 54
    MAXIMUM = 55
    ARG_MAX = 56
    MINIMUM = 57
    LESS = 58
    NEG = 59
    PADV2 = 60
    GREATER = 61
    GREATER_EQUAL = 62
    LESS_EQUAL = 63
    SELECT = 64
    SLICE = 65
    SIN = 66
    TRANSPOSE_CONV = 67
    SPARSE_TO_DENSE = 68
    TILE = 69
    EXPAND_DIMS = 70
    EQUAL = 71
    NOT_EQUAL = 72
    LOG = 73
    SUM = 74
    SQRT = 75
    RSQRT = 76
    SHAPE = 77
    POW = 78
    ARG_MIN = 79
    FAKE_QUANT = 80
    REDUCE_PROD = 81
    REDUCE_MAX = 82
    PACK = 83
    LOGICAL_OR = 84
    ONE_HOT = 85
    LOGICAL_AND = 86
    LOGICAL_NOT = 87
    UNPACK = 88
    REDUCE_MIN = 89
    FLOOR_DIV = 90
    REDUCE_ANY = 91
    SQUARE = 92
    ZEROS_LIKE = 93
    FILL = 94
    FLOOR_MOD = 95
    RANGE = 96
    RESIZE_NEAREST_NEIGHBOR = 97
    LEAKY_RELU = 98
    SQUARED_DIFFERENCE = 99
    MIRROR_PAD = 100
    ABS = 101
    SPLIT_V = 102
    UNIQUE = 103
    CEIL = 104
    REVERSE_V2 = 105
    ADD_N = 106
    GATHER_ND = 107
    COS = 108
    WHERE = 109
    RANK = 110
    ELU = 111
    REVERSE_SEQUENCE = 112
    MATRIX_DIAG = 113
    QUANTIZE = 114
    MATRIX_SET_DIAG = 115
    ROUND = 116
    HARD_SWISH = 117
    IF = 118
    WHILE = 119
    NON_MAX_SUPPRESSION_V4 = 120
    NON_MAX_SUPPRESSION_V5 = 121
    SCATTER_ND = 122
    SELECT_V2 = 123
    DENSIFY = 124
    SEGMENT_SUM = 125
    BATCH_MATMUL = 126
    PLACEHOLDER_FOR_GREATER_OP_CODES = 127
    CUMSUM = 128
    CALL_ONCE = 129
    BROADCAST_TO = 130
    RFFT2D = 131
    CONV_3D = 132
    IMAG = 133
    REAL = 134
    COMPLEX_ABS = 135
    HASHTABLE = 136
    HASHTABLE_FIND = 137
    HASHTABLE_IMPORT = 138
    HASHTABLE_SIZE = 139
    REDUCE_ALL = 140
    CONV_3D_TRANSPOSE = 141
    VAR_HANDLE = 142
    READ_VARIABLE = 143
    ASSIGN_VARIABLE = 144
    BROADCAST_ARGS = 145
    RANDOM_STANDARD_NORMAL = 146
    BUCKETIZE = 147
    RANDOM_UNIFORM = 148
    MULTINOMIAL = 149
    GELU = 150
    DYNAMIC_UPDATE_SLICE = 151
    RELU_0_TO_1 = 152
    UNSORTED_SEGMENT_PROD = 153
    UNSORTED_SEGMENT_MAX = 154
    UNSORTED_SEGMENT_SUM = 155
    ATAN2 = 156
    UNSORTED_SEGMENT_MIN = 157
    SIGN = 158
    BITCAST = 159
    BITWISE_XOR = 160
    RIGHT_SHIFT = 161
    STABLEHLO_LOGISTIC = 162
    STABLEHLO_ADD = 163
    STABLEHLO_DIVIDE = 164
    STABLEHLO_MULTIPLY = 165
    STABLEHLO_MAXIMUM = 166
    STABLEHLO_RESHAPE = 167
    STABLEHLO_CLAMP = 168
    STABLEHLO_CONCATENATE = 169
    STABLEHLO_BROADCAST_IN_DIM = 170
    STABLEHLO_CONVOLUTION = 171
    STABLEHLO_SLICE = 172
    STABLEHLO_CUSTOM_CALL = 173
    STABLEHLO_REDUCE = 174
    STABLEHLO_ABS = 175
    STABLEHLO_AND = 176
    STABLEHLO_COSINE = 177
    STABLEHLO_EXPONENTIAL = 178
    STABLEHLO_FLOOR = 179
    STABLEHLO_LOG = 180
    STABLEHLO_MINIMUM = 181
    STABLEHLO_NEGATE = 182
    STABLEHLO_OR = 183
    STABLEHLO_POWER = 184
    STABLEHLO_REMAINDER = 185
    STABLEHLO_RSQRT = 186
    STABLEHLO_SELECT = 187
    STABLEHLO_SUBTRACT = 188
    STABLEHLO_TANH = 189
    STABLEHLO_SCATTER = 190
    STABLEHLO_COMPARE = 191
    STABLEHLO_CONVERT = 192
    STABLEHLO_DYNAMIC_SLICE = 193
    STABLEHLO_DYNAMIC_UPDATE_SLICE = 194
    STABLEHLO_PAD = 195
    STABLEHLO_IOTA = 196
    STABLEHLO_DOT_GENERAL = 197
    STABLEHLO_REDUCE_WINDOW = 198
    STABLEHLO_SORT = 199
    STABLEHLO_WHILE = 200
    STABLEHLO_GATHER = 201
    STABLEHLO_TRANSPOSE = 202
    DILATE = 203
    STABLEHLO_RNG_BIT_GENERATOR = 204
    REDUCE_WINDOW = 205
    STABLEHLO_COMPOSITE = 206
    STABLEHLO_SHIFT_LEFT = 207
    STABLEHLO_CBRT = 208
    STABLEHLO_CASE = 209


class StablehloPrecisionConfig:
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


class StablehloComparisonDirection:
    STABLEHLO_COMPARISON_DIRECTION_EQ = 0
    STABLEHLO_COMPARISON_DIRECTION_NE = 1
    STABLEHLO_COMPARISON_DIRECTION_GE = 2
    STABLEHLO_COMPARISON_DIRECTION_GT = 3
    STABLEHLO_COMPARISON_DIRECTION_LE = 4
    STABLEHLO_COMPARISON_DIRECTION_LT = 5


class StablehloComparisonType:
    STABLEHLO_COMPARISON_TYPE_NOTYPE = 0
    STABLEHLO_COMPARISON_TYPE_FLOAT = 1
    STABLEHLO_COMPARISON_TYPE_FLOAT_TOTAL_ORDER = 2
    STABLEHLO_COMPARISON_TYPE_SIGNED = 3
    STABLEHLO_COMPARISON_TYPE_UNSIGNED = 4


class RngAlgorithm:
    DEFAULT = 0
    PHILOX = 1
    THREEFRY = 2


class Padding:
    SAME = 0
    VALID = 1


class ActivationFunctionType:
    NONE = 0
    RELU = 1
    RELU_N1_TO_1 = 2
    RELU6 = 3
    TANH = 4
    SIGN_BIT = 5


class LSHProjectionType:
    UNKNOWN = 0
    SPARSE = 1
    DENSE = 2


class FullyConnectedOptionsWeightsFormat:
    DEFAULT = 0
    SHUFFLED4x16INT8 = 1


class LSTMKernelType:
    FULL = 0
    BASIC = 1


class CombinerType:
    SUM = 0
    MEAN = 1
    SQRTN = 2


class MirrorPadMode:
    REFLECT = 0
    SYMMETRIC = 1


class ReduceWindowFunction:
    UNSUPPORTED = 0
    ADD = 1
    MUL = 2
    MINIMUM = 3
    MAXIMUM = 4
    ALL = 5
    ANY = 6


class CustomOptionsFormat:
    FLEXBUFFERS = 0


UNIONS: dict[str, dict[int, str]] = {
    "QuantizationDetails": {
        1: "CustomQuantization",
        2: "BlockwiseQuantization",
        3: "MultiAxisQuantization",
    },
    "SparseIndexVector": {
        1: "Int32Vector",
        2: "Uint16Vector",
        3: "Uint8Vector",
    },
    "BuiltinOptions": {
        1: "Conv2DOptions",
        2: "DepthwiseConv2DOptions",
        3: "ConcatEmbeddingsOptions",
        4: "LSHProjectionOptions",
        5: "Pool2DOptions",
        6: "SVDFOptions",
        7: "RNNOptions",
        8: "FullyConnectedOptions",
        9: "SoftmaxOptions",
        10: "ConcatenationOptions",
        11: "AddOptions",
        12: "L2NormOptions",
        13: "LocalResponseNormalizationOptions",
        14: "LSTMOptions",
        15: "ResizeBilinearOptions",
        16: "CallOptions",
        17: "ReshapeOptions",
        18: "SkipGramOptions",
        19: "SpaceToDepthOptions",
        20: "EmbeddingLookupSparseOptions",
        21: "MulOptions",
        22: "PadOptions",
        23: "GatherOptions",
        24: "BatchToSpaceNDOptions",
        25: "SpaceToBatchNDOptions",
        26: "TransposeOptions",
        27: "ReducerOptions",
        28: "SubOptions",
        29: "DivOptions",
        30: "SqueezeOptions",
        31: "SequenceRNNOptions",
        32: "StridedSliceOptions",
        33: "ExpOptions",
        34: "TopKV2Options",
        35: "SplitOptions",
        36: "LogSoftmaxOptions",
        37: "CastOptions",
        38: "DequantizeOptions",
        39: "MaximumMinimumOptions",
        40: "ArgMaxOptions",
        41: "LessOptions",
        42: "NegOptions",
        43: "PadV2Options",
        44: "GreaterOptions",
        45: "GreaterEqualOptions",
        46: "LessEqualOptions",
        47: "SelectOptions",
        48: "SliceOptions",
        49: "TransposeConvOptions",
        50: "SparseToDenseOptions",
        51: "TileOptions",
        52: "ExpandDimsOptions",
        53: "EqualOptions",
        54: "NotEqualOptions",
        55: "ShapeOptions",
        56: "PowOptions",
        57: "ArgMinOptions",
        58: "FakeQuantOptions",
        59: "PackOptions",
        60: "LogicalOrOptions",
        61: "OneHotOptions",
        62: "LogicalAndOptions",
        63: "LogicalNotOptions",
        64: "UnpackOptions",
        65: "FloorDivOptions",
        66: "SquareOptions",
        67: "ZerosLikeOptions",
        68: "FillOptions",
        69: "BidirectionalSequenceLSTMOptions",
        70: "BidirectionalSequenceRNNOptions",
        71: "UnidirectionalSequenceLSTMOptions",
        72: "FloorModOptions",
        73: "RangeOptions",
        74: "ResizeNearestNeighborOptions",
        75: "LeakyReluOptions",
        76: "SquaredDifferenceOptions",
        77: "MirrorPadOptions",
        78: "AbsOptions",
        79: "SplitVOptions",
        80: "UniqueOptions",
        81: "ReverseV2Options",
        82: "AddNOptions",
        83: "GatherNdOptions",
        84: "CosOptions",
        85: "WhereOptions",
        86: "RankOptions",
        87: "ReverseSequenceOptions",
        88: "MatrixDiagOptions",
        89: "QuantizeOptions",
        90: "MatrixSetDiagOptions",
        91: "HardSwishOptions",
        92: "IfOptions",
        93: "WhileOptions",
        94: "DepthToSpaceOptions",
        95: "NonMaxSuppressionV4Options",
        96: "NonMaxSuppressionV5Options",
        97: "ScatterNdOptions",
        98: "SelectV2Options",
        99: "DensifyOptions",
        100: "SegmentSumOptions",
        101: "BatchMatMulOptions",
        102: "CumsumOptions",
        103: "CallOnceOptions",
        104: "BroadcastToOptions",
        105: "Rfft2dOptions",
        106: "Conv3DOptions",
        107: "HashtableOptions",
        108: "HashtableFindOptions",
        109: "HashtableImportOptions",
        110: "HashtableSizeOptions",
        111: "VarHandleOptions",
        112: "ReadVariableOptions",
        113: "AssignVariableOptions",
        114: "RandomOptions",
        115: "BucketizeOptions",
        116: "GeluOptions",
        117: "DynamicUpdateSliceOptions",
        118: "UnsortedSegmentProdOptions",
        119: "UnsortedSegmentMaxOptions",
        120: "UnsortedSegmentMinOptions",
        121: "UnsortedSegmentSumOptions",
        122: "ATan2Options",
        123: "SignOptions",
        124: "BitcastOptions",
        125: "BitwiseXorOptions",
        126: "RightShiftOptions",
    },
    "BuiltinOptions2": {
        1: "StablehloConcatenateOptions",
        2: "StablehloBroadcastInDimOptions",
        3: "StablehloSliceOptions",
        4: "StablehloConvolutionOptions",
        5: "StablehloCustomCallOptions",
        6: "StablehloReduceOptions",
        7: "StablehloScatterOptions",
        8: "StablehloCompareOptions",
        9: "StablehloDynamicSliceOptions",
        10: "StablehloPadOptions",
        11: "StablehloIotaOptions",
        12: "StablehloDotGeneralOptions",
        13: "StablehloReduceWindowOptions",
        14: "StablehloSortOptions",
        15: "StablehloWhileOptions",
        16: "StablehloGatherOptions",
        17: "StablehloTransposeOptions",
        18: "DilateOptions",
        19: "StablehloRngBitGeneratorOptions",
        20: "ReduceWindowOptions",
        21: "StableHLOCompositeOptions",
        22: "StablehloShiftLeftOptions",
        23: "StablehloCaseOptions",
    },
}
"""Union -> tag -> the table its value holds (tag 0, NONE, holds nothing)."""

TABLES: dict[str, tuple[tuple[str, int, str, object], ...]] = {
    "CustomQuantization": (("custom", 4, "[B", None),),
    "BlockwiseQuantization": (
        ("scales", 4, "i", 0),
        ("zeroPoints", 6, "i", 0),
        ("blockSize", 8, "i", 0),
    ),
    "MultiAxisQuantization": (
        ("scales", 4, "i", 0),
        ("zeroPoints", 6, "i", 0),
        ("blockSize", 8, "i", 0),
        ("quantizedDimensions", 10, "[i", None),
    ),
    "QuantizationParameters": (
        ("min", 4, "[f", None),
        ("max", 6, "[f", None),
        ("scale", 8, "[f", None),
        ("zeroPoint", 10, "[q", None),
        ("detailsType", 12, "B", 0),
        ("details", 14, "u:QuantizationDetails", None),
        ("quantizedDimension", 16, "i", 0),
    ),
    "Int32Vector": (("values", 4, "[i", None),),
    "Uint16Vector": (("values", 4, "[H", None),),
    "Uint8Vector": (("values", 4, "[B", None),),
    "DimensionMetadata": (
        ("format", 4, "b", 0),
        ("denseSize", 6, "i", 0),
        ("arraySegmentsType", 8, "B", 0),
        ("arraySegments", 10, "u:SparseIndexVector", None),
        ("arrayIndicesType", 12, "B", 0),
        ("arrayIndices", 14, "u:SparseIndexVector", None),
    ),
    "SparsityParameters": (
        ("traversalOrder", 4, "[i", None),
        ("blockMap", 6, "[i", None),
        ("dimMetadata", 8, "[t:DimensionMetadata", None),
    ),
    "VariantSubType": (
        ("shape", 4, "[i", None),
        ("type", 6, "b", 0),
        ("hasRank", 8, "?", False),
    ),
    "Tensor": (
        ("shape", 4, "[i", None),
        ("type", 6, "b", 0),
        ("buffer", 8, "I", 0),
        ("name", 10, "s", None),
        ("quantization", 12, "t:QuantizationParameters", None),
        ("isVariable", 14, "?", False),
        ("sparsity", 16, "t:SparsityParameters", None),
        ("shapeSignature", 18, "[i", None),
        ("hasRank", 20, "?", False),
        ("variantTensors", 22, "[t:VariantSubType", None),
        ("externalBuffer", 24, "I", 0),
    ),
    "StablehloGatherOptions": (
        ("offsetDims", 4, "[q", None),
        ("collapsedSliceDims", 6, "[q", None),
        ("startIndexMap", 8, "[q", None),
        ("indexVectorDim", 10, "q", 0),
        ("sliceSizes", 12, "[q", None),
        ("indicesAreSorted", 14, "?", False),
    ),
    "StablehloTransposeOptions": (("permutation", 4, "[q", None),),
    "StablehloDotGeneralOptions": (
        ("lhsBatchingDimensions", 4, "[q", None),
        ("rhsBatchingDimensions", 6, "[q", None),
        ("lhsContractingDimensions", 8, "[q", None),
        ("rhsContractingDimensions", 10, "[q", None),
        ("precisionConfig", 12, "[I", None),
    ),
    "StablehloReduceWindowOptions": (
        ("windowDimensions", 4, "[q", None),
        ("windowStrides", 6, "[q", None),
        ("baseDilations", 8, "[q", None),
        ("windowDilations", 10, "[q", None),
        ("padding", 12, "[q", None),
        ("bodySubgraphIndex", 14, "i", 0),
    ),
    "StablehloWhileOptions": (
        ("condSubgraphIndex", 4, "i", 0),
        ("bodySubgraphIndex", 6, "i", 0),
    ),
    "StablehloSortOptions": (
        ("dimension", 4, "q", 0),
        ("isStable", 6, "?", False),
        ("comparatorSubgraphIndex", 8, "i", 0),
    ),
    "StablehloConcatenateOptions": (("dimension", 4, "q", 0),),
    "StablehloBroadcastInDimOptions": (("broadcastDimensions", 4, "[q", None),),
    "StablehloCompareOptions": (
        ("comparisonDirection", 4, "I", 0),
        ("compareType", 6, "I", 0),
    ),
    "StablehloDynamicSliceOptions": (("sliceSizes", 4, "[q", None),),
    "StablehloPadOptions": (
        ("edgePaddingLow", 4, "[q", None),
        ("edgePaddingHigh", 6, "[q", None),
        ("interiorPadding", 8, "[q", None),
    ),
    "StablehloIotaOptions": (("iotaDimension", 4, "q", 0),),
    "StablehloCustomCallOptions": (
        ("callTargetName", 4, "s", None),
        ("hasSideEffect", 6, "?", False),
        ("backendConfig", 8, "s", None),
        ("apiVersion", 10, "i", 0),
        ("calledComputations", 12, "[i", None),
        ("customAttributes", 14, "[B", None),
    ),
    "StablehloReduceOptions": (
        ("dimensions", 4, "[q", None),
        ("bodySubgraphIndex", 6, "i", 0),
    ),
    "StablehloSliceOptions": (
        ("startIndices", 4, "[q", None),
        ("limitIndices", 6, "[q", None),
        ("strides", 8, "[q", None),
    ),
    "StablehloConvolutionOptions": (
        ("windowStrides", 4, "[q", None),
        ("padding", 6, "[q", None),
        ("lhsDilation", 8, "[q", None),
        ("rhsDilation", 10, "[q", None),
        ("windowReversal", 12, "[?", None),
        ("inputBatchDimension", 14, "q", 0),
        ("inputFeatureDimension", 16, "q", 0),
        ("inputSpatialDimensions", 18, "[q", None),
        ("kernelInputFeatureDimension", 20, "q", 0),
        ("kernelOutputFeatureDimension", 22, "q", 0),
        ("kernelSpatialDimensions", 24, "[q", None),
        ("outputBatchDimension", 26, "q", 0),
        ("outputFeatureDimension", 28, "q", 0),
        ("outputSpatialDimensions", 30, "[q", None),
        ("featureGroupCount", 32, "q", 0),
        ("batchGroupCount", 34, "q", 0),
        ("precisionConfig", 36, "[I", None),
    ),
    "StablehloScatterOptions": (
        ("indicesAreSorted", 4, "?", False),
        ("updateWindowDims", 6, "[q", None),
        ("insertedWindowDims", 8, "[q", None),
        ("scatterDimsToOperandDims", 10, "[q", None),
        ("indexVectorDim", 12, "q", 0),
        ("uniqueIndices", 14, "?", False),
        ("updateComputationSubgraphIndex", 16, "i", 0),
    ),
    "StablehloCaseOptions": (("branchSubgraphIndices", 4, "[i", None),),
    "StablehloRngBitGeneratorOptions": (("algorithm", 4, "b", 0),),
    "Conv2DOptions": (
        ("padding", 4, "b", 0),
        ("strideW", 6, "i", 0),
        ("strideH", 8, "i", 0),
        ("fusedActivationFunction", 10, "b", 0),
        ("dilationWFactor", 12, "i", 1),
        ("dilationHFactor", 14, "i", 1),
        ("quantizedBiasType", 16, "b", 0),
    ),
    "Conv3DOptions": (
        ("padding", 4, "b", 0),
        ("strideD", 6, "i", 0),
        ("strideW", 8, "i", 0),
        ("strideH", 10, "i", 0),
        ("fusedActivationFunction", 12, "b", 0),
        ("dilationDFactor", 14, "i", 1),
        ("dilationWFactor", 16, "i", 1),
        ("dilationHFactor", 18, "i", 1),
    ),
    "Pool2DOptions": (
        ("padding", 4, "b", 0),
        ("strideW", 6, "i", 0),
        ("strideH", 8, "i", 0),
        ("filterWidth", 10, "i", 0),
        ("filterHeight", 12, "i", 0),
        ("fusedActivationFunction", 14, "b", 0),
    ),
    "DepthwiseConv2DOptions": (
        ("padding", 4, "b", 0),
        ("strideW", 6, "i", 0),
        ("strideH", 8, "i", 0),
        ("depthMultiplier", 10, "i", 0),
        ("fusedActivationFunction", 12, "b", 0),
        ("dilationWFactor", 14, "i", 1),
        ("dilationHFactor", 16, "i", 1),
    ),
    "ConcatEmbeddingsOptions": (
        ("numChannels", 4, "i", 0),
        ("numColumnsPerChannel", 6, "[i", None),
        ("embeddingDimPerChannel", 8, "[i", None),
    ),
    "LSHProjectionOptions": (("type", 4, "b", 0),),
    "SVDFOptions": (
        ("rank", 4, "i", 0),
        ("fusedActivationFunction", 6, "b", 0),
        ("asymmetricQuantizeInputs", 8, "?", False),
    ),
    "RNNOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("asymmetricQuantizeInputs", 6, "?", False),
    ),
    "SequenceRNNOptions": (
        ("timeMajor", 4, "?", False),
        ("fusedActivationFunction", 6, "b", 0),
        ("asymmetricQuantizeInputs", 8, "?", False),
    ),
    "BidirectionalSequenceRNNOptions": (
        ("timeMajor", 4, "?", False),
        ("fusedActivationFunction", 6, "b", 0),
        ("mergeOutputs", 8, "?", False),
        ("asymmetricQuantizeInputs", 10, "?", False),
    ),
    "FullyConnectedOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("weightsFormat", 6, "b", 0),
        ("keepNumDims", 8, "?", False),
        ("asymmetricQuantizeInputs", 10, "?", False),
        ("quantizedBiasType", 12, "b", 0),
    ),
    "SoftmaxOptions": (("beta", 4, "f", 0.0),),
    "ConcatenationOptions": (
        ("axis", 4, "i", 0),
        ("fusedActivationFunction", 6, "b", 0),
    ),
    "AddOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("potScaleInt16", 6, "?", True),
    ),
    "MulOptions": (("fusedActivationFunction", 4, "b", 0),),
    "L2NormOptions": (("fusedActivationFunction", 4, "b", 0),),
    "LocalResponseNormalizationOptions": (
        ("radius", 4, "i", 0),
        ("bias", 6, "f", 0.0),
        ("alpha", 8, "f", 0.0),
        ("beta", 10, "f", 0.0),
    ),
    "LSTMOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("cellClip", 6, "f", 0.0),
        ("projClip", 8, "f", 0.0),
        ("kernelType", 10, "b", 0),
        ("asymmetricQuantizeInputs", 12, "?", False),
    ),
    "UnidirectionalSequenceLSTMOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("cellClip", 6, "f", 0.0),
        ("projClip", 8, "f", 0.0),
        ("timeMajor", 10, "?", False),
        ("asymmetricQuantizeInputs", 12, "?", False),
        ("diagonalRecurrentTensors", 14, "?", False),
    ),
    "BidirectionalSequenceLSTMOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("cellClip", 6, "f", 0.0),
        ("projClip", 8, "f", 0.0),
        ("mergeOutputs", 10, "?", False),
        ("timeMajor", 12, "?", True),
        ("asymmetricQuantizeInputs", 14, "?", False),
    ),
    "ResizeBilinearOptions": (
        ("alignCorners", 8, "?", False),
        ("halfPixelCenters", 10, "?", False),
    ),
    "ResizeNearestNeighborOptions": (
        ("alignCorners", 4, "?", False),
        ("halfPixelCenters", 6, "?", False),
    ),
    "CallOptions": (("subgraph", 4, "I", 0),),
    "PadOptions": (),
    "PadV2Options": (),
    "ReshapeOptions": (("newShape", 4, "[i", None),),
    "SpaceToBatchNDOptions": (),
    "BatchToSpaceNDOptions": (),
    "SkipGramOptions": (
        ("ngramSize", 4, "i", 0),
        ("maxSkipSize", 6, "i", 0),
        ("includeAllNgrams", 8, "?", False),
    ),
    "SpaceToDepthOptions": (("blockSize", 4, "i", 0),),
    "DepthToSpaceOptions": (("blockSize", 4, "i", 0),),
    "SubOptions": (
        ("fusedActivationFunction", 4, "b", 0),
        ("potScaleInt16", 6, "?", True),
    ),
    "DivOptions": (("fusedActivationFunction", 4, "b", 0),),
    "TopKV2Options": (),
    "EmbeddingLookupSparseOptions": (("combiner", 4, "b", 0),),
    "GatherOptions": (
        ("axis", 4, "i", 0),
        ("batchDims", 6, "i", 0),
    ),
    "TransposeOptions": (),
    "ExpOptions": (),
    "CosOptions": (),
    "ReducerOptions": (("keepDims", 4, "?", False),),
    "SqueezeOptions": (("squeezeDims", 4, "[i", None),),
    "SplitOptions": (("numSplits", 4, "i", 0),),
    "SplitVOptions": (("numSplits", 4, "i", 0),),
    "StridedSliceOptions": (
        ("beginMask", 4, "i", 0),
        ("endMask", 6, "i", 0),
        ("ellipsisMask", 8, "i", 0),
        ("newAxisMask", 10, "i", 0),
        ("shrinkAxisMask", 12, "i", 0),
        ("offset", 14, "?", False),
    ),
    "LogSoftmaxOptions": (),
    "CastOptions": (
        ("inDataType", 4, "b", 0),
        ("outDataType", 6, "b", 0),
    ),
    "DequantizeOptions": (),
    "MaximumMinimumOptions": (),
    "TileOptions": (),
    "ArgMaxOptions": (("outputType", 4, "b", 0),),
    "ArgMinOptions": (("outputType", 4, "b", 0),),
    "GreaterOptions": (),
    "GreaterEqualOptions": (),
    "LessOptions": (),
    "LessEqualOptions": (),
    "NegOptions": (),
    "SelectOptions": (),
    "SliceOptions": (),
    "TransposeConvOptions": (
        ("padding", 4, "b", 0),
        ("strideW", 6, "i", 0),
        ("strideH", 8, "i", 0),
        ("fusedActivationFunction", 10, "b", 0),
        ("quantizedBiasType", 12, "b", 0),
    ),
    "ExpandDimsOptions": (),
    "SparseToDenseOptions": (("validateIndices", 4, "?", False),),
    "EqualOptions": (),
    "NotEqualOptions": (),
    "ShapeOptions": (("outType", 4, "b", 0),),
    "RankOptions": (),
    "PowOptions": (),
    "FakeQuantOptions": (
        ("min", 4, "f", 0.0),
        ("max", 6, "f", 0.0),
        ("numBits", 8, "i", 0),
        ("narrowRange", 10, "?", False),
    ),
    "PackOptions": (
        ("valuesCount", 4, "i", 0),
        ("axis", 6, "i", 0),
    ),
    "LogicalOrOptions": (),
    "OneHotOptions": (("axis", 4, "i", 0),),
    "AbsOptions": (),
    "HardSwishOptions": (),
    "LogicalAndOptions": (),
    "LogicalNotOptions": (),
    "UnpackOptions": (
        ("num", 4, "i", 0),
        ("axis", 6, "i", 0),
    ),
    "FloorDivOptions": (),
    "SquareOptions": (),
    "ZerosLikeOptions": (),
    "FillOptions": (),
    "FloorModOptions": (),
    "RangeOptions": (),
    "LeakyReluOptions": (("alpha", 4, "f", 0.0),),
    "SquaredDifferenceOptions": (),
    "MirrorPadOptions": (("mode", 4, "b", 0),),
    "UniqueOptions": (("idxOutType", 4, "b", 2),),
    "ReverseV2Options": (),
    "AddNOptions": (),
    "GatherNdOptions": (),
    "WhereOptions": (),
    "ReverseSequenceOptions": (
        ("seqDim", 4, "i", 0),
        ("batchDim", 6, "i", 0),
    ),
    "MatrixDiagOptions": (),
    "QuantizeOptions": (),
    "MatrixSetDiagOptions": (),
    "IfOptions": (
        ("thenSubgraphIndex", 4, "i", 0),
        ("elseSubgraphIndex", 6, "i", 0),
    ),
    "CallOnceOptions": (("initSubgraphIndex", 4, "i", 0),),
    "WhileOptions": (
        ("condSubgraphIndex", 4, "i", 0),
        ("bodySubgraphIndex", 6, "i", 0),
    ),
    "NonMaxSuppressionV4Options": (),
    "NonMaxSuppressionV5Options": (),
    "ScatterNdOptions": (),
    "SelectV2Options": (),
    "DensifyOptions": (),
    "SegmentSumOptions": (),
    "BatchMatMulOptions": (
        ("adjX", 4, "?", False),
        ("adjY", 6, "?", False),
        ("asymmetricQuantizeInputs", 8, "?", False),
    ),
    "CumsumOptions": (
        ("exclusive", 4, "?", False),
        ("reverse", 6, "?", False),
    ),
    "BroadcastToOptions": (),
    "Rfft2dOptions": (),
    "HashtableOptions": (
        ("tableId", 4, "i", 0),
        ("keyDtype", 6, "b", 0),
        ("valueDtype", 8, "b", 0),
    ),
    "HashtableFindOptions": (),
    "HashtableImportOptions": (),
    "HashtableSizeOptions": (),
    "VarHandleOptions": (
        ("container", 4, "s", None),
        ("sharedName", 6, "s", None),
    ),
    "ReadVariableOptions": (),
    "AssignVariableOptions": (),
    "RandomOptions": (
        ("seed", 4, "q", 0),
        ("seed2", 6, "q", 0),
    ),
    "BucketizeOptions": (("boundaries", 4, "[f", None),),
    "GeluOptions": (("approximate", 4, "?", False),),
    "DynamicUpdateSliceOptions": (),
    "UnsortedSegmentProdOptions": (),
    "UnsortedSegmentMaxOptions": (),
    "UnsortedSegmentSumOptions": (),
    "ATan2Options": (),
    "UnsortedSegmentMinOptions": (),
    "SignOptions": (),
    "BitcastOptions": (),
    "BitwiseXorOptions": (),
    "RightShiftOptions": (),
    "DilateOptions": (),
    "ReduceWindowOptions": (("reduceFunction", 4, "i", 0),),
    "OperatorCode": (
        ("deprecatedBuiltinCode", 4, "b", 0),
        ("customCode", 6, "s", None),
        ("version", 8, "i", 1),
        ("builtinCode", 10, "i", 0),
    ),
    "StableHLOCompositeOptions": (
        ("name", 4, "s", None),
        ("decompositionSubgraphIndex", 6, "i", 0),
        ("compositeAttributes", 8, "[B", None),
        ("compositeAttributesFormat", 10, "b", 0),
        ("version", 12, "i", 0),
    ),
    "StablehloShiftLeftOptions": (),
    "Operator": (
        ("opcodeIndex", 4, "I", 0),
        ("inputs", 6, "[i", None),
        ("outputs", 8, "[i", None),
        ("builtinOptionsType", 10, "B", 0),
        ("builtinOptions", 12, "u:BuiltinOptions", None),
        ("customOptions", 14, "[B", None),
        ("customOptionsFormat", 16, "b", 0),
        ("mutatingVariableInputs", 18, "[?", None),
        ("intermediates", 20, "[i", None),
        ("largeCustomOptionsOffset", 22, "Q", 0),
        ("largeCustomOptionsSize", 24, "Q", 0),
        ("builtinOptions2Type", 26, "B", 0),
        ("builtinOptions2", 28, "u:BuiltinOptions2", None),
        ("debugMetadataIndex", 30, "i", -1),
    ),
    "SubGraph": (
        ("tensors", 4, "[t:Tensor", None),
        ("inputs", 6, "[i", None),
        ("outputs", 8, "[i", None),
        ("operators", 10, "[t:Operator", None),
        ("name", 12, "s", None),
        ("debugMetadataIndex", 14, "i", -1),
    ),
    "Buffer": (
        ("data", 4, "[B", None),
        ("offset", 6, "Q", 0),
        ("size", 8, "Q", 0),
    ),
    "ExternalBufferGroup": (("name", 4, "s", None),),
    "ExternalBuffer": (
        ("id", 4, "I", 0),
        ("group", 6, "I", 0),
        ("offset", 8, "Q", 0),
        ("length", 10, "Q", 0),
        ("packing", 12, "s", None),
    ),
    "Metadata": (
        ("name", 4, "s", None),
        ("buffer", 6, "I", 0),
    ),
    "TensorMap": (
        ("name", 4, "s", None),
        ("tensorIndex", 6, "I", 0),
    ),
    "SignatureDef": (
        ("inputs", 4, "[t:TensorMap", None),
        ("outputs", 6, "[t:TensorMap", None),
        ("signatureKey", 8, "s", None),
        ("subgraphIndex", 12, "I", 0),
    ),
    "Model": (
        ("version", 4, "I", 0),
        ("operatorCodes", 6, "[t:OperatorCode", None),
        ("subgraphs", 8, "[t:SubGraph", None),
        ("description", 10, "s", None),
        ("buffers", 12, "[t:Buffer", None),
        ("metadataBuffer", 14, "[i", None),
        ("metadata", 16, "[t:Metadata", None),
        ("signatureDefs", 18, "[t:SignatureDef", None),
        ("externalBufferGroups", 20, "[t:ExternalBufferGroup", None),
        ("externalBuffers", 22, "[t:ExternalBuffer", None),
    ),
}
"""Table -> its object-API fields as (attribute, vtable slot, kind, default), in order."""
