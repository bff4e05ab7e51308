"""Example plugin: a word-count tool."""


def word_count(text: str) -> str:
    return str(len(text.split()))


def setup(register) -> None:
    register(
        "word_count",
        word_count,
        {
            "name": "word_count",
            "description": "Count the words in a text.",
            "input_schema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
    )
