"""The MkDocs plugin ``harness`` and what only it uses: its typed configuration
(:mod:`.config`), its hooks (:mod:`.plugin`), the notebooks' page wrapper and
buttons (:mod:`.notebooks`), the page checks (:mod:`.page_checks`)
and the post-processing of the built site (:mod:`.site_output`)."""
