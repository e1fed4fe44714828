"""Reading LiteRT (``.tflite``) models: the file reader, safe schema accessors, and the checked,
typed model view the Load stage builds AIR from."""
