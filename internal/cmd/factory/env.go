package factory

// ToolDirsEnv lists, colon-separated, host directories of toolchains
// installed outside /usr (rustup's ~/.cargo, nvm, a JDK) that the command
// services' sandboxes may read.
const ToolDirsEnv = "COGWORKS_TOOL_DIRS"
