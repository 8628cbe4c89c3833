import tempfile
from pathlib import Path

import torch

torch.manual_seed(0)
IN_FEATURES, OUT_FEATURES = 3, 2

model = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "weights.pt"
    torch.save(model.state_dict(), path)
    state = torch.load(path, weights_only=True)

restored = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
restored.load_state_dict(state)
entries = len(state)
weight_shape = state["weight"].shape
new_memory = state["weight"].data_ptr() != model.weight.data_ptr()
same_weights = torch.equal(restored.weight, model.weight) and torch.equal(restored.bias, model.bias)
print(sorted(state), weight_shape, new_memory, same_weights)
