## Reader, symbolizer and the profcat test tool
