"""The web's pages as the service makes them: who may see what, and what each page shows,
in the reader's language, for any front-end that serves pages."""
