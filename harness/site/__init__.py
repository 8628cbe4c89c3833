"""The MkDocs plugin ``harness`` (:mod:`.plugin`, configured by :mod:`.config`) and what
only it uses: notebook pages, page checks, the built site's post-processing."""
