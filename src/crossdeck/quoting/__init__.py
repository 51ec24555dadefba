"""Quote requests from what a person typed: `builder` is the one builder below the app's Quote
form and the command line's quote options. No textual, no pydantic at import."""
