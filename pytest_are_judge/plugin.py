"""pytest glue (options, markers, fixtures, collection, reports); filled in by the plugin work."""
