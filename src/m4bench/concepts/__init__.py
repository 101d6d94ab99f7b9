"""The derived concept library (``mimiciv_derived``): SQL files, their graph, their build."""
