# Object-detection box utilities written by hand, as detection tutorials do before reaching for a
# library: box format conversion, a pairwise IoU matrix, anchors on a feature-map grid from
# meshgrid, matching anchors to ground truth, (dx, dy, dw, dh) box encoding and decoding, greedy
# and batched (class-offset) non-maximum suppression, and a focal + smooth-L1 detection loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
IMAGE_SIZE = 64
BBOX_CLIP = torch.log(torch.tensor(1000.0 / 16))  # the largest log-scale a decoded box may take


def cxcywh_to_xyxy(boxes):
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def xyxy_to_cxcywh(boxes):
    x0, y0, x1, y1 = boxes.unbind(-1)
    return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], dim=-1)


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_inter_union(a, b):
    """Intersection and union areas of every box in a (N, 4) with every box in b (M, 4)."""
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, box_area(a)[:, None] + box_area(b) - inter


def box_iou(a, b):
    """IoU of every box in a (N, 4) with every box in b (M, 4), xyxy format: (N, M)."""
    inter, union = box_inter_union(a, b)
    return inter / union


def generalized_iou(a, b):
    inter, union = box_inter_union(a, b)
    lt = torch.min(a[:, None, :2], b[:, :2])
    rb = torch.max(a[:, None, 2:], b[:, 2:])
    hull = (rb - lt).clamp(min=0).prod(dim=2)
    return inter / union - (hull - union) / hull


def make_anchors(feature_size, stride, sizes=(8.0, 16.0), ratios=(0.5, 1.0, 2.0)):
    scales = torch.as_tensor(sizes)
    aspect = torch.as_tensor(ratios)
    h_ratio = torch.sqrt(aspect)
    w_ratio = 1 / h_ratio
    ws = (w_ratio[:, None] * scales[None, :]).reshape(-1)
    hs = (h_ratio[:, None] * scales[None, :]).reshape(-1)
    base = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
    shifts_x = torch.arange(0, feature_size, dtype=torch.float64) * stride + stride / 2
    shifts_y = torch.arange(0, feature_size, dtype=torch.float64) * stride + stride / 2
    shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
    shifts = torch.stack((shift_x.reshape(-1), shift_y.reshape(-1)) * 2, dim=1)
    return (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)


def encode(gt, anchors, weights=(10.0, 10.0, 5.0, 5.0)):
    g, a = xyxy_to_cxcywh(gt), xyxy_to_cxcywh(anchors)
    wx, wy, ww, wh = weights
    return torch.stack([wx * (g[:, 0] - a[:, 0]) / a[:, 2], wy * (g[:, 1] - a[:, 1]) / a[:, 3],
                        ww * torch.log(g[:, 2] / a[:, 2]), wh * torch.log(g[:, 3] / a[:, 3])], dim=1)


def decode(deltas, anchors, weights=(10.0, 10.0, 5.0, 5.0)):
    a = xyxy_to_cxcywh(anchors)
    d = deltas / deltas.new_tensor(weights)
    dw, dh = d[:, 2].clamp(max=BBOX_CLIP), d[:, 3].clamp(max=BBOX_CLIP)
    cx, cy = d[:, 0] * a[:, 2] + a[:, 0], d[:, 1] * a[:, 3] + a[:, 1]
    w, h = torch.exp(dw) * a[:, 2], torch.exp(dh) * a[:, 3]
    return cxcywh_to_xyxy(torch.stack([cx, cy, w, h], dim=1))


def nms(boxes, scores, threshold):
    """Greedy NMS: indices of kept boxes, highest score first."""
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= threshold]
    return torch.tensor(keep, dtype=torch.long)


def batched_nms(boxes, scores, labels, threshold):
    """NMS per class in one call: shift each class's boxes far apart so classes never overlap."""
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    offsets = labels.to(boxes) * (boxes.max() + 1)
    return nms(boxes + offsets[:, None], scores, threshold)


def match(anchors, gt, high=0.5, low=0.4):
    """For each anchor the matched ground-truth index, -1 background, -2 ignored."""
    iou = box_iou(gt, anchors)                      # (G, A)
    best_iou, best_gt = iou.max(dim=0)
    matches = best_gt.clone()
    matches[best_iou < high] = -2
    matches[best_iou < low] = -1
    # every ground truth keeps its best anchor(s), even below the threshold
    highest = iou.max(dim=1, keepdim=True).values
    gt_idx, anchor_idx = torch.nonzero(iou == highest, as_tuple=True)
    matches[anchor_idx] = best_gt[anchor_idx]
    return matches, best_iou


# conversions and IoU on hand-made boxes
a = torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 15.0, 15.0], [20.0, 20.0, 30.0, 40.0]])
b = torch.tensor([[0.0, 0.0, 10.0, 10.0], [10.0, 0.0, 20.0, 10.0], [0.0, 0.0, 40.0, 40.0]])
print(xyxy_to_cxcywh(a), torch.allclose(cxcywh_to_xyxy(xyxy_to_cxcywh(a)), a))
print(box_iou(a, b))
print(generalized_iou(a, b), box_area(a))

anchors = make_anchors(feature_size=4, stride=16)
print(anchors.shape, anchors[:6])
print(anchors.min().item(), anchors.max().item(), anchors[:, 0].unique().numel())
clipped = anchors.clamp(min=0, max=IMAGE_SIZE)
inside = ((anchors >= 0) & (anchors <= IMAGE_SIZE)).all(dim=1)
print(clipped[:2], inside.sum().item(), inside.nonzero().flatten()[:8].tolist())

gt_boxes = torch.tensor([[4.0, 6.0, 22.0, 20.0], [30.0, 28.0, 58.0, 60.0], [40.0, 2.0, 50.0, 22.0]])
gt_labels = torch.tensor([1, 2, 1])
matches, best_iou = match(anchors, gt_boxes)
print(torch.bincount(matches + 2, minlength=5).tolist(), best_iou.topk(5).values)
positive = matches >= 0
print(positive.sum().item(), matches[positive].tolist()[:10])

targets = encode(gt_boxes[matches[positive]], anchors[positive])
print(targets[:3], torch.allclose(decode(targets, anchors[positive]), gt_boxes[matches[positive]]))
print(decode(torch.tensor([[0.0, 0.0, 100.0, -100.0]]), anchors[:1]))


# a tiny detection head over a fixed feature map: classification logits and box deltas per anchor
class Head(nn.Module):
    def __init__(self, channels, num_anchors, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.cls = nn.Conv2d(channels, num_anchors * num_classes, 1)
        self.box = nn.Conv2d(channels, num_anchors * 4, 1)
        prior = 0.01
        nn.init.constant_(self.cls.bias, -torch.log(torch.tensor((1 - prior) / prior)).item())

    def forward(self, feats):
        x = F.relu(self.conv(feats))
        n = x.shape[0]
        cls = self.cls(x).permute(0, 2, 3, 1).reshape(n, -1, self.num_classes)
        box = self.box(x).permute(0, 2, 3, 1).reshape(n, -1, 4)
        return cls, box


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).sum()


num_classes = 3
head = Head(8, 6, num_classes)
feats = torch.randn(1, 8, 4, 4)
cls_target = torch.zeros(anchors.shape[0], num_classes)
cls_target[positive, gt_labels[matches[positive]]] = 1.0
valid = matches != -2
optimizer = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.9)
for step in range(30):
    cls_logits, box_deltas = head(feats)
    num_pos = max(1, positive.sum().item())
    loss_cls = focal_loss(cls_logits[0][valid], cls_target[valid]) / num_pos
    loss_box = F.smooth_l1_loss(box_deltas[0][positive], targets, beta=1 / 9, reduction="sum") / num_pos
    loss = loss_cls + loss_box
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 9:
        print(f"step {step + 1}: cls {loss_cls.item():.6f} box {loss_box.item():.6f}")

# post-processing: score threshold, top-k candidates, decode, clip, per-class NMS
with torch.no_grad():
    cls_logits, box_deltas = head(feats)
scores_all = cls_logits[0].sigmoid().flatten()
keep = scores_all > 0.05
scores_kept = scores_all[keep]
topk = min(20, scores_kept.numel())
scores_top, idx = scores_kept.topk(topk)
flat_idx = keep.nonzero().squeeze(1)[idx]
anchor_idx = torch.div(flat_idx, num_classes, rounding_mode="floor")
labels = flat_idx % num_classes
boxes = decode(box_deltas[0][anchor_idx], anchors[anchor_idx])
boxes[:, 0::2] = boxes[:, 0::2].clamp(0, IMAGE_SIZE)
boxes[:, 1::2] = boxes[:, 1::2].clamp(0, IMAGE_SIZE)
kept = batched_nms(boxes, scores_top, labels, 0.5)
print(scores_top.shape, labels.tolist(), kept.tolist())
print(boxes[kept][:3], scores_top[kept][:3])
print(nms(a, torch.tensor([0.9, 0.8, 0.7]), 0.1), batched_nms(a[:0], torch.ones(0), labels[:0], 0.5))
# detections of a batch as one flat list, each box tagged with its image by repeat_interleave
per_image = torch.tensor([kept.numel(), 0, 2])
image_idx = torch.repeat_interleave(per_image)
flat = torch.cat([boxes[kept], boxes[:0], boxes[:2]])
print(image_idx.tolist(), flat.shape, torch.arange(3).repeat_interleave(per_image, output_size=5).tolist())
best = box_iou(boxes[kept], gt_boxes).max(dim=1)
print(best.values, best.indices, (best.values > 0.5).float().mean())
