"""The MkDocs plugin ``harness`` (:mod:`.plugin`, configured by :mod:`.config`) and what
only it uses: the notebooks' page wrapper and buttons (:mod:`.notebooks`), the page
checks (:mod:`.page_checks`) and the post-processing of the built site
(:mod:`.site_output`)."""
