"""``torch.autograd.functional``: this name is ``inplace_lab.autograd.functional`` itself."""
import sys

from inplace_lab.autograd import functional as _functional

sys.modules[__name__] = _functional
