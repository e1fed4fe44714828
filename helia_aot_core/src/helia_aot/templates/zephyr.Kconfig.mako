# Kconfig of helia-aot module ${layout.name_comment} (${layout.model_comment}).

config ${symbol}
	bool "helia-aot inference module ${layout.target}"
	help
	  Builds the C inference module helia-aot generated from ${layout.model_comment}
	  for ${layout.platform_name}. Its API is declared in ${layout.prefix}_model.h.
