// docs/examples/moons_plot.hpp: the data of the two-moons pictures, as CSV files that
// docs/images/plot.py draws: the points with their class, a trained network's score on a grid
// over the plane, and the loss per step.
#pragma once

#include <zerograd/nn/datasets.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace moons_plot {

// The plotted window and the grid of points where the network is evaluated.
constexpr double x_low = -1.5, x_high = 2.5, y_low = -1.25, y_high = 1.5;
constexpr int columns = 121, rows = 84;

inline double grid_x(int column) { return x_low + column * (x_high - x_low) / (columns - 1); }
inline double grid_y(int row) { return y_low + row * (y_high - y_low) / (rows - 1); }

// Fixed precision, so the files are the same from every compiler.
inline std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", x);
    return text;
}

/// Writes NAME_points.csv, NAME_scores.csv (`scores` row by row from the bottom, a positive score
/// meaning class 1) and NAME_loss.csv into `folder`.
inline void write_csv(const std::string& folder, const std::string& name,
                      const zg::nn::dataset& data, const std::vector<double>& scores,
                      const std::vector<double>& losses) {
    std::ofstream points(folder + name + "_points.csv", std::ios::binary);
    points << "x,y,label\n";
    for (std::size_t i = 0; i < data.size(); ++i)
        points << number(data.x[i][0]) << ',' << number(data.x[i][1]) << ',' << data.labels[i]
               << '\n';
    std::ofstream grid(folder + name + "_scores.csv", std::ios::binary);
    grid << "x,y,score\n";
    for (int row = 0; row < rows; ++row)
        for (int column = 0; column < columns; ++column)
            grid << number(grid_x(column)) << ',' << number(grid_y(row)) << ','
                 << number(scores[std::size_t(row * columns + column)]) << '\n';
    std::ofstream loss(folder + name + "_loss.csv", std::ios::binary);
    loss << "step,loss\n";
    for (std::size_t step = 0; step < losses.size(); ++step)
        loss << step << ',' << number(losses[step]) << '\n';
    std::printf("wrote %s_points.csv, %s_scores.csv and %s_loss.csv\n", name.c_str(),
                name.c_str(), name.c_str());
}

} // namespace moons_plot
