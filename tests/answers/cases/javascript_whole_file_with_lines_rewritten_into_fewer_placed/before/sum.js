function total(items) {
  let sum = 0;
  for (let i = 1; i < items.length; i++) {
    sum += items[i];
  }
  return sum;
}

function count(items) {
  return items.length;
}

function first(items) {
  return items[0];
}

module.exports = { total, count, first };
