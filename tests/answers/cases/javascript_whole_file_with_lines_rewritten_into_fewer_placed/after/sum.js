function total(items) {
  return items.reduce((sum, item) => sum + item, 0);
}

function count(items) {
  return items.length;
}

function first(items) {
  return items[0];
}

module.exports = { total, count, first };
