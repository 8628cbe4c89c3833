"""The MkDocs plugin ``harness`` (:mod:`.plugin`) and what
only it uses: notebook pages, page checks, the built site's post-processing."""
