"""Reading LiteRT (``.tflite``) models: safe schema accessors and the file reader."""
