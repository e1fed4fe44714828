# Kconfig of helia-aot module ${layout.name_comment} (${layout.model_comment}).

config ZEPHYR_${symbol}_MODULE
	bool

menuconfig ${symbol}
	bool "${layout.target} module"
	help
	  Builds the C inference module helia-aot generated from ${layout.model_comment}
	  for ${layout.platform_name}. Its API is declared in ${layout.prefix}_model.h.

config ${legacy}
	bool "${layout.target} module (earlier helia-aot option name)"
	select ${symbol}
	help
	  The option earlier helia-aot modules used; setting it sets ${symbol}.
